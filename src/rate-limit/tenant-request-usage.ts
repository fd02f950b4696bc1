import { Inject, Injectable } from '@nestjs/common';
import { HOURLY } from './plan-limits';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';

/**
 * What a tenant's secret keys have used of the plan's `requestsPerHour`: the count of the very
 * window the limiter keeps (hours aligned to the clock, on Redis when configured), read without
 * counting anything. Users' requests are never in it (they have limits of their own).
 */
@Injectable()
export class TenantRequestUsage {
  constructor(@Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore) {}

  async thisHour(tenantId: string): Promise<number> {
    // The limit is the plan's; reading the count needs only the window's name and length.
    const [hourly] = await this.store.peek(`tenant:${tenantId}`, [{ ...HOURLY, limit: Number.MAX_SAFE_INTEGER }]);
    return hourly.count;
  }
}
