import type Redis from 'ioredis';
import { newEntryId, type Reservation, type SlidingLimit, type SlidingLogStore } from './sliding-log';

/**
 * A log is a sorted set: one member per entry, scored by the Redis server's clock (so every
 * instance agrees), trimmed to its window before it is counted. Sorted sets rather than two fixed
 * buckets weighted by overlap: the approximation would let a burst at a bucket's end pass the
 * limit by up to its weight, and an exact log costs at most `limit` members (100 for an e-mail).
 * The group's key lists its logs' names, for forgetting them; all keys share the `{group}` hash tag.
 */
const RESERVE = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local id = ARGV[1]
local refused, wait = false, 0
for i = 2, #ARGV, 3 do
  local key, limit, window = KEYS[1] .. ':' .. ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    local oldest = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    local this_wait = tonumber(oldest[2]) + window - now
    if not refused or this_wait > wait then refused, wait = ARGV[i], this_wait end
  end
end
if refused then return { 0, refused, wait } end
for i = 2, #ARGV, 3 do
  local key, window = KEYS[1] .. ':' .. ARGV[i], tonumber(ARGV[i + 2])
  redis.call('ZADD', key, now, id)
  redis.call('PEXPIRE', key, window)
  redis.call('SADD', KEYS[1], ARGV[i])
  if redis.call('PTTL', KEYS[1]) < window then redis.call('PEXPIRE', KEYS[1], window) end
end
return { 1, id, 0 }
`;

const RELEASE = `
for i = 2, #ARGV do redis.call('ZREM', KEYS[1] .. ':' .. ARGV[i], ARGV[1]) end
return 0
`;

const FORGET = `
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do redis.call('DEL', KEYS[1] .. ':' .. name) end
redis.call('DEL', KEYS[1])
return 0
`;

type RedisWithLogs = Redis & {
  slidingReserve(key: string, ...args: (string | number)[]): Promise<[number, string, number]>;
  slidingRelease(key: string, ...args: string[]): Promise<number>;
  slidingForget(key: string): Promise<number>;
};

export class RedisSlidingLogs implements SlidingLogStore {
  private readonly redis: RedisWithLogs;

  constructor(
    redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('slidingReserve', { numberOfKeys: 1, lua: RESERVE });
    redis.defineCommand('slidingRelease', { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand('slidingForget', { numberOfKeys: 1, lua: FORGET });
    this.redis = redis as RedisWithLogs;
  }

  async reserve(group: string, limits: readonly SlidingLimit[]): Promise<Reservation> {
    const args = limits.flatMap(({ name, limit, windowMs }) => [name, limit, windowMs]);
    const [granted, idOrName, wait] = await this.redis.slidingReserve(this.keyOf(group), newEntryId(), ...args);
    return granted ? { granted: true, id: idOrName } : { granted: false, name: idOrName, retryInMs: wait };
  }

  async release(group: string, names: readonly string[], id: string): Promise<void> {
    await this.redis.slidingRelease(this.keyOf(group), id, ...names);
  }

  async forget(group: string): Promise<void> {
    await this.redis.slidingForget(this.keyOf(group));
  }

  private keyOf(group: string): string {
    return `${this.prefix}:log:{${group}}`;
  }
}
