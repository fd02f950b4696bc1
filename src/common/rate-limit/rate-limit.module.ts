import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/env';
import { FailedAuthLimiter, AUTH_FAILURE_POLICY } from './failed-auth.limiter';
import { FailoverRateLimitStore } from './failover-rate-limit.store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { BURST, DEFAULT_RATE_LIMIT_PLANS, HOURLY, planOf, RATE_LIMIT_DISABLED, RATE_LIMIT_PLANS, RateLimitPlans } from './plan-limits';
import { RATE_LIMIT_STORE } from './rate-limit.store';
import { RedisRateLimitStore } from './redis-rate-limit.store';

export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * A Redis client that never makes a request wait on an outage: no offline queue, no per-command
 * retries, short timeouts; it keeps reconnecting in the background.
 */
export function createRedisClient(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    connectTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Errors surface on the commands (and are logged by the failover store); an unhandled
  // 'error' event would otherwise crash the process.
  redis.on('error', () => undefined);
  return redis;
}

function scalePlans(plans: RateLimitPlans, multiplier: number): RateLimitPlans {
  if (multiplier === 1) return plans;
  const scaled = Object.entries(plans).map(([plan, limits]) => [
    plan,
    { requestsPerHour: limits.requestsPerHour * multiplier, burstPerSecond: limits.burstPerSecond * multiplier },
  ]);
  return Object.fromEntries(scaled) as RateLimitPlans;
}

const STARTUP_CONNECT_WAIT_MS = 3_000;

/**
 * Connects before the app serves, so the first requests already count in the shared store. A
 * Redis that is down at start is not fatal: the app starts limiting in-process and switches to
 * Redis when it comes up.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = createRedisClient(url);
  const ready = new Promise<boolean>((resolve) => {
    redis.once('ready', () => resolve(true));
    setTimeout(() => resolve(false), STARTUP_CONNECT_WAIT_MS).unref();
  });
  if (!(await ready)) new Logger('RateLimit').warn('Redis is not reachable at start; limiting in-process until it is.');
  return redis;
}

export interface RateLimitOptions {
  plans?: RateLimitPlans;
}

@Global()
@Module({})
export class RateLimitModule implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');

  constructor(@Optional() @Inject(REDIS_CLIENT) private readonly redis?: Redis | null) {}

  static forRoot(config: AppConfig, options: RateLimitOptions = {}): DynamicModule {
    const plans = scalePlans(options.plans ?? DEFAULT_RATE_LIMIT_PLANS, config.rateLimit.multiplier);
    return {
      module: RateLimitModule,
      imports: [
        ThrottlerModule.forRoot({
          setHeaders: false,
          throttlers: [
            { name: HOURLY.name, ttl: HOURLY.ttlMs, limit: (context) => plans[planOf(context) ?? 'free'].requestsPerHour },
            { name: BURST.name, ttl: BURST.ttlMs, limit: (context) => plans[planOf(context) ?? 'free'].burstPerSecond },
          ],
        }),
      ],
      providers: [
        { provide: RATE_LIMIT_PLANS, useValue: plans },
        { provide: RATE_LIMIT_DISABLED, useValue: config.rateLimit.disabled },
        { provide: AUTH_FAILURE_POLICY, useValue: { limit: config.rateLimit.authFailuresPerMinute, ttlMs: 60_000 } },
        { provide: REDIS_CLIENT, useFactory: () => (config.redisUrl ? connectRedis(config.redisUrl) : null) },
        {
          provide: RATE_LIMIT_STORE,
          inject: [REDIS_CLIENT],
          useFactory: (redis: Redis | null) =>
            redis ? new FailoverRateLimitStore(new RedisRateLimitStore(redis), config.rateLimit.replicas) : new MemoryRateLimitStore(),
        },
        FailedAuthLimiter,
      ],
      exports: [ThrottlerModule, RATE_LIMIT_PLANS, RATE_LIMIT_DISABLED, RATE_LIMIT_STORE, REDIS_CLIENT, FailedAuthLimiter],
    };
  }

  onApplicationShutdown(): void {
    if (!this.redis) return;
    this.redis.disconnect();
    this.logger.log('Redis connection closed.');
  }
}
