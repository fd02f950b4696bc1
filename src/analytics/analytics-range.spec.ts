import { ValidationError } from '../common/errors/app-error';
import { previousRange, resolveRange } from './analytics-range';
import { instantOfWallClock, wallClockOf } from './zoned-time';

const iso = (range: { from: Date; to: Date }) => ({ from: range.from.toISOString(), to: range.to.toISOString() });
const NOW = new Date('2026-03-15T12:00:00.000Z');

function fieldError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error instanceof ValidationError ? error.details : error;
  }
  throw new Error('no error');
}

describe('zoned time', () => {
  it('reads the wall clock of an instant, DST included', () => {
    expect(new Date(wallClockOf(new Date('2026-01-15T03:00:00Z'), 'America/New_York')).toISOString()).toBe('2026-01-14T22:00:00.000Z');
    expect(new Date(wallClockOf(new Date('2026-07-15T03:00:00.250Z'), 'America/New_York')).toISOString()).toBe('2026-07-14T23:00:00.250Z');
    expect(new Date(wallClockOf(new Date('2026-07-15T03:00:00Z'), 'Asia/Kolkata')).toISOString()).toBe('2026-07-15T08:30:00.000Z');
  });

  it('finds the instant of a wall-clock time; a skipped time is the instant the clock jumps past it, a repeated one its first occurrence', () => {
    const at = (wall: string, zone: string) => instantOfWallClock(Date.parse(`${wall}Z`), zone).toISOString();
    expect(at('2026-03-08T00:00:00', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
    expect(at('2026-03-09T00:00:00', 'America/New_York')).toBe('2026-03-09T04:00:00.000Z');
    expect(at('2026-03-08T02:30:00', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
    expect(at('2026-11-01T01:30:00', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    // Santiago skips its midnight: the day starts at 01:00.
    expect(at('2026-09-06T00:00:00', 'America/Santiago')).toBe('2026-09-06T04:00:00.000Z');
    expect(at('2026-01-01T00:00:00', 'Pacific/Kiritimati')).toBe('2025-12-31T10:00:00.000Z');
    expect(at('0050-06-01T00:00:00', 'UTC')).toBe('0050-06-01T00:00:00.000Z');
  });
});

describe('resolveRange', () => {
  it('defaults to the 30 days ending now', () => {
    expect(iso(resolveRange({}, 'UTC', NOW))).toEqual({ from: '2026-02-13T12:00:00.001Z', to: '2026-03-15T12:00:00.000Z' });
  });

  it('reads a date as the whole day in the time zone, a date-time as that instant', () => {
    expect(iso(resolveRange({ from: '2026-01-01', to: '2026-01-31' }, 'America/New_York', NOW))).toEqual({
      from: '2026-01-01T05:00:00.000Z',
      to: '2026-02-01T04:59:59.999Z',
    });
    expect(iso(resolveRange({ from: '2026-01-01T10:00:00+01:00', to: '2026-01-02' }, 'Europe/Berlin', NOW))).toEqual({
      from: '2026-01-01T09:00:00.000Z',
      to: '2026-01-02T22:59:59.999Z',
    });
    expect(iso(resolveRange({ to: '2026-01-31' }, 'UTC', NOW))).toEqual({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-31T23:59:59.999Z' });
  });

  it('takes 366 days on the tenant’s clock, across a DST change, and refuses one millisecond more on from', () => {
    expect(iso(resolveRange({ from: '2025-03-15', to: '2026-03-15' }, 'America/New_York', NOW)).from).toBe('2025-03-15T04:00:00.000Z');
    expect(fieldError(() => resolveRange({ from: '2025-03-14', to: '2026-03-15' }, 'America/New_York', NOW))).toEqual([
      { field: 'from', message: 'must be at most 366 days before to' },
    ]);
    expect(fieldError(() => resolveRange({ from: '2025-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }, 'UTC', NOW))).toEqual([
      { field: 'from', message: 'must be at most 366 days before to' },
    ]);
    expect(resolveRange({ from: '2025-01-01T00:00:00Z', to: '2026-01-01T23:59:59.999Z' }, 'UTC', NOW).from.toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('refuses from later than to, also when only from is given', () => {
    expect(fieldError(() => resolveRange({ from: '2026-02-01', to: '2026-01-31' }, 'UTC', NOW))).toEqual([
      { field: 'from', message: 'must not be later than to' },
    ]);
    expect(fieldError(() => resolveRange({ from: '2026-03-16' }, 'UTC', NOW))).toEqual([{ field: 'from', message: 'must not be later than to' }]);
  });

  it('keeps the bounds within the years 0001-9999', () => {
    expect(iso(resolveRange({ from: '0001-01-01', to: '0001-01-02' }, 'Asia/Tokyo', NOW)).from).toBe('0001-01-01T00:00:00.000Z');
    expect(iso(resolveRange({ from: '9999-12-30', to: '9999-12-31' }, 'America/New_York', NOW)).to).toBe('9999-12-31T23:59:59.999Z');
  });
});

describe('previousRange', () => {
  it('is the range of the same length just before, on the tenant’s clock', () => {
    const tz = 'America/New_York';
    expect(iso(previousRange(resolveRange({ from: '2026-04-01', to: '2026-04-30' }, tz, NOW), tz))).toEqual({
      from: '2026-03-02T05:00:00.000Z',
      to: '2026-04-01T03:59:59.999Z',
    });
    expect(iso(previousRange(resolveRange({}, 'UTC', NOW), 'UTC'))).toEqual({ from: '2026-01-14T12:00:00.001Z', to: '2026-02-13T12:00:00.000Z' });
  });
});
