import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { isOver, RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';

export interface AuthFailurePolicy {
  limit: number;
  ttlMs: number;
}

export const AUTH_FAILURE_POLICY = Symbol('AUTH_FAILURE_POLICY');

/**
 * The brute-force guard: requests with a missing or invalid key are counted per client IP in
 * the shared store. Past the limit, that IP gets 429 for the rest of the window on this
 * instance, valid key or not, so keys cannot be tried at speed; every other instance learns
 * the same on that IP's next failure, from the shared count. Valid requests cost nothing here.
 */
@Injectable()
export class FailedAuthLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(AUTH_FAILURE_POLICY) private readonly policy: AuthFailurePolicy,
  ) {}

  assertNotBlocked(ip: string, now = Date.now()): void {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return;
    if (until > now) throw this.tooManyFailures(until - now);
    this.blockedUntil.delete(ip);
  }

  /** Counts a failure; throws 429 once the IP is over the limit (the caller throws 401 otherwise). */
  async recordFailure(ip: string): Promise<void> {
    const [usage] = await this.store.hit(`auth-failures:${ip}`, [{ name: 'auth', limit: this.policy.limit, ttlMs: this.policy.ttlMs }]);
    if (!isOver(usage)) return;
    this.blockedUntil.set(ip, usage.resetAt - usage.now + Date.now());
    throw this.tooManyFailures(usage.resetAt - usage.now);
  }

  private tooManyFailures(retryInMs: number): AppError {
    const retryAfter = String(Math.max(1, Math.ceil(retryInMs / 1000)));
    return new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, 'Too many requests with a missing or invalid API key from this address. Retry after the time in Retry-After.', undefined, { 'Retry-After': retryAfter });
  }
}
