import Redis from 'ioredis';
import { RedisRateLimitStore } from './redis-rate-limit.store';

const url = process.env.REDIS_URL;

/** Runs against the real Redis when REDIS_URL is set (CI); the Lua script is the unit under test. */
(url ? describe : describe.skip)('RedisRateLimitStore', () => {
  let redis: Redis;
  const prefix = `rl-test-${process.pid}-${Date.now()}`;

  beforeAll(() => {
    redis = new Redis(url!);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts all windows in one call with the server clock and expiring keys', async () => {
    const store = new RedisRateLimitStore(redis, prefix);
    const windows = [
      { name: 'burst', limit: 2, ttlMs: 60_000 },
      { name: 'hourly', limit: 5, ttlMs: 3_600_000 },
    ];
    const first = await store.hit('tenant:a', windows);
    expect(first.map((usage) => usage.count)).toEqual([1, 1]);
    expect(Math.abs(first[0].now - Date.now())).toBeLessThan(5_000);
    expect(first[1].resetAt % 3_600_000).toBe(0);
    expect(first[1].resetAt).toBeGreaterThan(first[1].now);

    await store.hit('tenant:a', windows);
    const third = await store.hit('tenant:a', windows);
    expect(third.map((usage) => usage.count)).toEqual([3, 2]);

    const keys = await redis.keys(`${prefix}:*`);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0);
  });

  it('keeps sliding logs of guesses: all or none, released, forgotten, and never reset by a window boundary', async () => {
    const store = new RedisRateLimitStore(redis, prefix);
    const quarter = { name: 'from:a', limit: 2, windowMs: 900_000 };
    const hour = { name: 'anywhere', limit: 3, windowMs: 3_600_000 };
    const first = await store.reserve('login:e', [quarter, hour]);
    expect(first).toEqual({ granted: true, id: expect.any(String) });
    expect((await store.reserve('login:e', [quarter, hour])).granted).toBe(true);
    const refused = await store.reserve('login:e', [quarter, hour]);
    expect(refused).toMatchObject({ granted: false, name: 'from:a' });
    expect(!refused.granted && refused.retryInMs).toBeGreaterThan(890_000);
    expect((await store.reserve('login:e', [hour])).granted).toBe(true);
    expect(await store.reserve('login:e', [hour])).toMatchObject({ granted: false, name: 'anywhere' });

    await store.release('login:e', ['from:a', 'anywhere'], first.granted ? first.id : '');
    expect((await store.reserve('login:e', [quarter, hour])).granted).toBe(true);
    expect(await redis.zcard(`${prefix}:log:{login:e}:anywhere`)).toBe(3);
    expect(await redis.pttl(`${prefix}:log:{login:e}`)).toBeGreaterThan(3_500_000);

    await store.forget('login:e');
    expect(await redis.keys(`${prefix}:log:{login:e}*`)).toEqual([]);
    expect((await store.reserve('login:e', [quarter, hour])).granted).toBe(true);
  });

  it('counts a sliding window: entries made before a window boundary still count after it', async () => {
    const store = new RedisRateLimitStore(redis, prefix);
    const window = { name: 'ip', limit: 2, windowMs: 2_000 };
    // Start in the second half of a 2 s period, so that its end (where a fixed window would reset) comes before the entries expire.
    while (Date.now() % 2_000 < 1_000 || Date.now() % 2_000 > 1_400) await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    expect((await store.reserve('guesses:ip', [window])).granted).toBe(true);
    expect((await store.reserve('guesses:ip', [window])).granted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_000 - (started % 2_000) + 50));
    const afterBoundary = await store.reserve('guesses:ip', [window]);
    // Only meaningful while the entries are younger than the window (a loaded machine may be late).
    if (Date.now() - started < 1_900) expect(afterBoundary.granted).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 2_100 - Date.now())));
    expect((await store.reserve('guesses:ip', [window])).granted).toBe(true);
  });
});
