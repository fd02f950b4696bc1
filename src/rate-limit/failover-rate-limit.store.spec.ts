import { Logger } from '@nestjs/common';
import { FailoverRateLimitStore } from './failover-rate-limit.store';
import type { RateLimitStore, WindowSpec, WindowUsage } from './rate-limit.store';
import type { Reservation, SlidingLimit } from './sliding-log';

class FlakyStore implements RateLimitStore {
  up = true;
  calls = 0;

  async hit(_key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    this.calls++;
    if (!this.up) throw new Error('Connection is closed.');
    return windows.map((window) => ({ ...window, count: 1, resetAt: 1_000, now: 0 }));
  }

  async peek(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    return this.hit(key, windows);
  }

  async reserve(_group: string, _limits: readonly SlidingLimit[]): Promise<Reservation> {
    this.calls++;
    if (!this.up) throw new Error('Connection is closed.');
    return { granted: true, id: 'shared' };
  }

  async release(): Promise<void> {}

  async forget(): Promise<void> {}
}

describe('FailoverRateLimitStore', () => {
  const hourly = { name: 'hourly', limit: 10, ttlMs: 3_600_000 };
  let warn: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('uses the shared store while it answers', async () => {
    const primary = new FlakyStore();
    const store = new FailoverRateLimitStore(primary, 2);
    expect((await store.hit('k', [hourly]))[0]).toMatchObject({ limit: 10, count: 1 });
    expect(store.isDegraded).toBe(false);
  });

  it('falls back to in-process counting at 1/replicas of each limit, warning once per outage', async () => {
    const primary = new FlakyStore();
    primary.up = false;
    const store = new FailoverRateLimitStore(primary, 4);
    const first = await store.hit('k', [hourly]);
    const second = await store.hit('k', [hourly]);
    expect(first[0]).toMatchObject({ limit: 2, count: 1 });
    expect(second[0]).toMatchObject({ limit: 2, count: 2 });
    expect(store.isDegraded).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('in-process');

    primary.up = true;
    expect((await store.hit('k', [hourly]))[0]).toMatchObject({ limit: 10, count: 1 });
    expect(store.isDegraded).toBe(false);
  });

  it('reserves guesses in-process at 1/replicas of each sliding limit while the shared store is away', async () => {
    const primary = new FlakyStore();
    primary.up = false;
    const store = new FailoverRateLimitStore(primary, 2);
    const perEmail = { name: 'anywhere', limit: 4, windowMs: 3_600_000 };
    expect((await store.reserve('login:e', [perEmail])).granted).toBe(true);
    expect((await store.reserve('login:e', [perEmail])).granted).toBe(true);
    expect(await store.reserve('login:e', [perEmail])).toMatchObject({ granted: false, name: 'anywhere' });
    primary.up = true;
    expect(await store.reserve('login:e', [perEmail])).toEqual({ granted: true, id: 'shared' });
  });

  it('never lowers a limit below one request', async () => {
    const primary = new FlakyStore();
    primary.up = false;
    const store = new FailoverRateLimitStore(primary, 100);
    expect((await store.hit('k', [{ name: 'burst', limit: 10, ttlMs: 1_000 }]))[0].limit).toBe(1);
  });
});
