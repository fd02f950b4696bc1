import type Redis from 'ioredis';
import { RateLimitStore, WindowSpec, WindowUsage } from './rate-limit.store';
import { RedisSlidingLogs } from './redis-sliding-log';
import { SlidingLogsHeldBy } from './sliding-log';

/**
 * All windows of one request in one Lua call: one round trip, atomic across instances. Window
 * boundaries come from the Redis server's clock, so every instance agrees on them. Keys share
 * the `{key}` hash tag, so they live in one slot on a cluster.
 */
const HIT_WINDOWS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local result = { now }
local blocked = false
for i = 1, #ARGV, 3 do
  local name, limit, ttl = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local reset = (math.floor(now / ttl) + 1) * ttl
  local key = KEYS[1] .. ':' .. name .. ':' .. reset
  local count
  if blocked then
    count = tonumber(redis.call('GET', key) or '0')
  else
    count = redis.call('INCR', key)
    if count == 1 then redis.call('PEXPIRE', key, ttl) end
  end
  if count > limit then blocked = true end
  table.insert(result, count)
  table.insert(result, reset)
end
return result
`;

/** The same windows read, nothing counted (RateLimitStore.peek). */
const PEEK_WINDOWS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local result = { now }
for i = 1, #ARGV, 2 do
  local name, ttl = ARGV[i], tonumber(ARGV[i + 1])
  local reset = (math.floor(now / ttl) + 1) * ttl
  table.insert(result, tonumber(redis.call('GET', KEYS[1] .. ':' .. name .. ':' .. reset) or '0'))
  table.insert(result, reset)
end
return result
`;

type RedisWithHit = Redis & {
  rateLimitHit(key: string, ...args: (string | number)[]): Promise<number[]>;
  rateLimitPeek(key: string, ...args: (string | number)[]): Promise<number[]>;
};

export class RedisRateLimitStore extends SlidingLogsHeldBy implements RateLimitStore {
  private readonly redis: RedisWithHit;
  protected readonly logs: RedisSlidingLogs;

  constructor(
    redis: Redis,
    private readonly prefix = 'rl',
  ) {
    super();
    redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_WINDOWS });
    redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK_WINDOWS });
    this.redis = redis as RedisWithHit;
    this.logs = new RedisSlidingLogs(redis, prefix);
  }

  async hit(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    const args = windows.flatMap((window) => [window.name, window.limit, window.ttlMs]);
    const [now, ...pairs] = await this.redis.rateLimitHit(`${this.prefix}:{${key}}`, ...args);
    return windows.map((window, index) => ({ ...window, count: pairs[index * 2], resetAt: pairs[index * 2 + 1], now }));
  }

  async peek(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    const [now, ...pairs] = await this.redis.rateLimitPeek(`${this.prefix}:{${key}}`, ...windows.flatMap((window) => [window.name, window.ttlMs]));
    return windows.map((window, index) => ({ ...window, count: pairs[index * 2], resetAt: pairs[index * 2 + 1], now }));
  }
}
