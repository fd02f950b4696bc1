import { ApiKeyActivityRecorder } from './api-key-activity.recorder';
import type { ApiKeyActivityRepository, KeyDayCount } from './api-key-activity.repository';

/** A repository that keeps the batches it is given, or fails while `down`. */
class FakeActivity {
  batches: KeyDayCount[][] = [];
  down = false;

  async addCounts(counts: readonly KeyDayCount[]): Promise<void> {
    if (this.down) throw new Error('database unreachable');
    this.batches.push(counts.map((count) => ({ ...count })));
  }
}

const T = 'tenant-1';
const at = (iso: string) => new Date(iso);

describe('ApiKeyActivityRecorder', () => {
  let store: FakeActivity;
  let recorder: ApiKeyActivityRecorder;

  beforeEach(() => {
    store = new FakeActivity();
    recorder = new ApiKeyActivityRecorder(store as unknown as ApiKeyActivityRepository);
  });

  it('counts per key and UTC day, errors being statuses of 400 and above, and stores them in one batch', async () => {
    recorder.count(T, 'k1', 200, at('2026-11-25T23:59:59Z'));
    recorder.count(T, 'k1', 404, at('2026-11-25T10:00:00Z'));
    recorder.count(T, 'k1', 399, at('2026-11-26T00:00:00Z'));
    recorder.count(T, 'k2', 500, at('2026-11-25T12:00:00Z'));
    expect(Object.fromEntries(recorder.unstored('k1'))).toEqual({ '2026-11-25': { requests: 2, errors: 1 }, '2026-11-26': { requests: 1, errors: 0 } });
    await recorder.flush();
    expect(store.batches).toEqual([
      [
        { tenantId: T, apiKeyId: 'k1', day: '2026-11-25', requests: 2, errors: 1 },
        { tenantId: T, apiKeyId: 'k1', day: '2026-11-26', requests: 1, errors: 0 },
        { tenantId: T, apiKeyId: 'k2', day: '2026-11-25', requests: 1, errors: 1 },
      ],
    ]);
    expect(recorder.unstored('k1').size).toBe(0);
  });

  it('writes nothing when nothing was counted', async () => {
    await recorder.flush();
    expect(store.batches).toEqual([]);
  });

  it('keeps the counts of a failed flush for the next one, added to the newer counts', async () => {
    recorder.count(T, 'k1', 200, at('2026-11-25T10:00:00Z'));
    store.down = true;
    await recorder.flush();
    recorder.count(T, 'k1', 500, at('2026-11-25T11:00:00Z'));
    expect(Object.fromEntries(recorder.unstored('k1'))).toEqual({ '2026-11-25': { requests: 2, errors: 1 } });
    store.down = false;
    await recorder.flush();
    expect(store.batches).toEqual([[{ tenantId: T, apiKeyId: 'k1', day: '2026-11-25', requests: 2, errors: 1 }]]);
  });

  it('reads the counts of a flush under way, and runs one flush at a time', async () => {
    let release!: () => void;
    const add = store.addCounts.bind(store);
    store.addCounts = async (counts) => {
      await new Promise<void>((resolve) => (release = resolve));
      await add(counts);
    };
    recorder.count(T, 'k1', 200, at('2026-11-25T10:00:00Z'));
    const first = recorder.flush();
    recorder.count(T, 'k1', 200, at('2026-11-25T10:00:01Z'));
    expect(Object.fromEntries(recorder.unstored('k1'))).toEqual({ '2026-11-25': { requests: 2, errors: 0 } });
    const second = recorder.flush();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await second;
    expect(store.batches.map((batch) => batch[0].requests)).toEqual([1, 1]);
  });

  it('stores the last counts when the app shuts down, and stops its timer', async () => {
    recorder.onModuleInit();
    recorder.count(T, 'k1', 200, at('2026-11-25T10:00:00Z'));
    await recorder.beforeApplicationShutdown();
    expect(store.batches).toHaveLength(1);
  });
});
