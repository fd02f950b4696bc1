import { MemorySlidingLogs, type Reservation } from './sliding-log';

const HOUR = 3_600_000;
const perHour = { name: 'anywhere', limit: 3, windowMs: HOUR };
const perQuarter = { name: 'from:a', limit: 2, windowMs: 15 * 60_000 };
const at = (iso: string) => Date.parse(iso);

const granted = (reservation: Reservation) => {
  if (!reservation.granted) throw new Error(`refused: ${JSON.stringify(reservation)}`);
  return reservation;
};

describe('MemorySlidingLogs', () => {
  it('counts the last windowMs whatever the clock hour: failures before 11:00 still count after it', async () => {
    let now = at('2026-01-01T10:59:00Z');
    const logs = new MemorySlidingLogs(() => now);
    granted(await logs.reserve('e', [perHour]));
    now = at('2026-01-01T10:59:30Z');
    granted(await logs.reserve('e', [perHour]));
    now = at('2026-01-01T10:59:59Z');
    granted(await logs.reserve('e', [perHour]));

    // A fixed, clock-aligned window would start again here.
    now = at('2026-01-01T11:00:01Z');
    expect(await logs.reserve('e', [perHour])).toEqual({ granted: false, name: 'anywhere', retryInMs: at('2026-01-01T11:59:00Z') - now });
    now = at('2026-01-01T11:58:59.999Z');
    expect((await logs.reserve('e', [perHour])).granted).toBe(false);

    // Each failure leaves the window exactly an hour after it was made.
    now = at('2026-01-01T11:59:00.001Z');
    granted(await logs.reserve('e', [perHour]));
    expect(await logs.reserve('e', [perHour])).toMatchObject({ granted: false, retryInMs: at('2026-01-01T11:59:30Z') - now });
  });

  it('reserves under every limit or none, and reports the limit that has room last', async () => {
    let now = 1_000_000;
    const logs = new MemorySlidingLogs(() => now);
    granted(await logs.reserve('e', [perQuarter, perHour]));
    now += 1_000;
    granted(await logs.reserve('e', [perQuarter, perHour]));
    now += 1_000;
    expect(await logs.reserve('e', [perQuarter, perHour])).toEqual({ granted: false, name: 'from:a', retryInMs: 15 * 60_000 - 2_000 });
    // The refused reservation added nothing to the hourly log: one more fits there.
    granted(await logs.reserve('e', [perHour]));
    expect(await logs.reserve('e', [perQuarter, perHour])).toEqual({ granted: false, name: 'anywhere', retryInMs: HOUR - 2_000 });
  });

  it('releases a reservation (a right guess is no failure) and forgets a whole group', async () => {
    const logs = new MemorySlidingLogs(() => 5_000);
    const first = granted(await logs.reserve('e', [perQuarter, perHour]));
    granted(await logs.reserve('e', [perQuarter, perHour]));
    expect((await logs.reserve('e', [perQuarter])).granted).toBe(false);
    await logs.release('e', ['from:a', 'anywhere'], first.id);
    granted(await logs.reserve('e', [perQuarter]));
    expect((await logs.reserve('e', [perQuarter])).granted).toBe(false);
    expect((await logs.reserve('other', [perQuarter])).granted).toBe(true);

    await logs.forget('e');
    granted(await logs.reserve('e', [perQuarter]));
    granted(await logs.reserve('e', [perQuarter]));
  });
});
