import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard } from '@nestjs/throttler';
import type { Resolvable, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import type { Response } from 'express';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest } from '../common/http/request-context';
import { retryAfter } from '../common/http/retry-after';
import { clientIp } from './client-ip';
import { PUBLIC_KEY_WINDOW, RATE_LIMIT_DISABLED } from './plan-limits';
import { isOver, RATE_LIMIT_STORE, type RateLimitStore, type WindowSpec } from './rate-limit.store';
import { writeRateLimitHeaders } from './rate-limit-headers';

/** A throttler's limit or ttl; awaited only when it is a promise (ours are plain numbers). */
function resolve(value: Resolvable<number>, context: ExecutionContext): number | Promise<number> {
  return typeof value === 'function' ? value(context) : value;
}

const WINDOW_LABEL: Record<string, string> = { hourly: 'hourly', burst: 'per-second burst' };

/**
 * The plan-aware limiter: the named throttlers of ThrottlerModule (hourly and burst, limits
 * resolved from the tenant's plan) counted per tenant, so all keys of a tenant share one quota
 * on every route. Both windows are counted in one store call (one Redis round trip), and the
 * response carries exactly the contract's headers instead of the throttler's suffixed ones.
 * Public-key requests never touch the tenant's quota or its headers (API_DECISIONS, Rate limits:
 * one rule more): a key copied from a web page must not stop the tenant's integrations. They are
 * counted per client IP instead, in the same store.
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(RATE_LIMIT_DISABLED) private readonly disabled: boolean,
    @Inject(PUBLIC_KEY_WINDOW) private readonly publicKeyWindow: WindowSpec,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const { req, res } = this.getRequestResponse(context) as { req: AppRequest; res: Response };
    if (!req.principal || this.disabled) return true;
    // Users have a limit of their own (UserRateLimitGuard), never the tenant's API quota.
    if (!req.principal.apiKey) return true;
    if (req.principal.apiKey.type === 'public') return this.limitPublicKey(req);
    const windows: WindowSpec[] = [];
    for (const throttler of this.throttlers) {
      const [limit, ttlMs] = [resolve(throttler.limit, context), resolve(throttler.ttl, context)];
      windows.push({
        name: throttler.name ?? 'default',
        limit: typeof limit === 'number' ? limit : await limit,
        ttlMs: typeof ttlMs === 'number' ? ttlMs : await ttlMs,
      });
    }
    // Shortest window first: a request the burst window refuses does not count against the hour.
    windows.sort((a, b) => a.ttlMs - b.ttlMs);
    const usage = await this.store.hit(`tenant:${req.principal.tenant.id}`, windows);
    const hourly = usage.reduce((longest, window) => (window.ttlMs > longest.ttlMs ? window : longest));
    const blocking = writeRateLimitHeaders(res, hourly, usage);
    if (blocking) {
      throw new AppError(
        ErrorCode.RATE_LIMIT_EXCEEDED,
        `Rate limit exceeded: the ${WINDOW_LABEL[blocking.name] ?? blocking.name} limit of ${blocking.limit} requests for your plan is used up. Retry after the time in Retry-After.`,
      );
    }
    return true;
  }

  private async limitPublicKey(req: AppRequest): Promise<boolean> {
    const [usage] = await this.store.hit(`public-key:${clientIp(req)}`, [this.publicKeyWindow]);
    if (!isOver(usage)) return true;
    throw new AppError(
      ErrorCode.RATE_LIMIT_EXCEEDED,
      `Rate limit exceeded: the public-key limit of ${usage.limit} requests per minute from this address is used up. Retry after the time in Retry-After.`,
      undefined,
      retryAfter(usage.resetAt - usage.now),
    );
  }
}
