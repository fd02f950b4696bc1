import { DynamicModule, Global, Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type Redis from 'ioredis';
import type { AppConfig } from '../config/env';
import { FailedAuthLimiter, AUTH_FAILURE_POLICY } from './failed-auth.limiter';
import { FailoverRateLimitStore } from './failover-rate-limit.store';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { PlanThrottlerGuard } from './plan-throttler.guard';
import { BURST, HOURLY, planOf, PUBLIC_KEY_WINDOW, RATE_LIMIT_DISABLED, RATE_LIMIT_PLANS, RateLimitPlans } from './plan-limits';
import { RATE_LIMIT_STORE, type WindowSpec } from './rate-limit.store';
import { RedisRateLimitStore } from './redis-rate-limit.store';
import { REDIS_CLIENT } from '../redis/redis.module';
import { TenantRequestUsage } from './tenant-request-usage';
import { USER_REQUESTS_PER_MINUTE, USER_WINDOW, UserRateLimitGuard } from './user-rate-limit.guard';

function scalePlans(plans: RateLimitPlans, multiplier: number): RateLimitPlans {
  if (multiplier === 1) return plans;
  const scaled = Object.entries(plans).map(([plan, limits]) => [
    plan,
    { requestsPerHour: limits.requestsPerHour * multiplier, burstPerSecond: limits.burstPerSecond * multiplier },
  ]);
  return Object.fromEntries(scaled) as RateLimitPlans;
}

/** The public-key window (PUBLIC_KEY_RATE_LIMIT a minute per client IP), scaled by RATE_LIMIT_MULTIPLIER like the plans. */
function publicKeyWindow(config: AppConfig): WindowSpec {
  return { name: 'public-key', limit: config.rateLimit.publicKeyPerMinute * config.rateLimit.multiplier, ttlMs: 60_000 };
}

/**
 * The tenant limiter, the public-key limiter and the failed-authentication guard. The plans'
 * request limits are handed in by the app module (the plan table is the tenancy feature's);
 * counters live in Redis when the RedisModule has a client, in-process otherwise.
 */
@Global()
@Module({})
export class RateLimitModule {
  static forRoot(config: AppConfig, planLimits: RateLimitPlans): DynamicModule {
    const plans = scalePlans(planLimits, config.rateLimit.multiplier);
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
        { provide: PUBLIC_KEY_WINDOW, useValue: publicKeyWindow(config) },
        { provide: USER_WINDOW, useValue: { name: 'user', limit: USER_REQUESTS_PER_MINUTE * config.rateLimit.multiplier, ttlMs: 60_000 } satisfies WindowSpec },
        { provide: AUTH_FAILURE_POLICY, useValue: { limit: config.rateLimit.authFailuresPerMinute * config.rateLimit.multiplier, ttlMs: 60_000 } },
        {
          provide: RATE_LIMIT_STORE,
          inject: [REDIS_CLIENT],
          useFactory: (redis: Redis | null) =>
            redis ? new FailoverRateLimitStore(new RedisRateLimitStore(redis), config.rateLimit.replicas) : new MemoryRateLimitStore(),
        },
        FailedAuthLimiter,
        TenantRequestUsage,
        PlanThrottlerGuard,
        UserRateLimitGuard,
      ],
      exports: [
        ThrottlerModule,
        RATE_LIMIT_PLANS,
        RATE_LIMIT_DISABLED,
        RATE_LIMIT_STORE,
        FailedAuthLimiter,
        PlanThrottlerGuard,
        UserRateLimitGuard,
        TenantRequestUsage,
      ],
    };
  }
}
