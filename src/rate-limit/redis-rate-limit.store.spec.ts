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
});
