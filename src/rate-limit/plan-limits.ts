import type { ExecutionContext } from '@nestjs/common';
import type { Plan } from '../generated/prisma/enums';
import type { AppRequest } from '../common/http/request-context';

export interface RequestLimits {
  requestsPerHour: number;
  burstPerSecond: number;
}

/** The plans' request limits; injectable so that tests can use small numbers. */
export const RATE_LIMIT_PLANS = Symbol('RATE_LIMIT_PLANS');
/** True when the tenant limiter is switched off (RATE_LIMIT_DISABLED, for load tests only). */
export const RATE_LIMIT_DISABLED = Symbol('RATE_LIMIT_DISABLED');

export type RateLimitPlans = Readonly<Record<Plan, RequestLimits>>;

export const HOURLY = { name: 'hourly', ttlMs: 3_600_000 } as const;
export const BURST = { name: 'burst', ttlMs: 1_000 } as const;
/** The public-key window as configured (see RateLimitModule); injectable like the plans. */
export const PUBLIC_KEY_WINDOW = Symbol('PUBLIC_KEY_WINDOW');

export function planOf(context: ExecutionContext): Plan | undefined {
  return context.switchToHttp().getRequest<AppRequest>().principal?.tenant.plan;
}
