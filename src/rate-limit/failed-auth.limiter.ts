import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import { isOver, RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';

export interface AuthFailurePolicy {
  limit: number;
  ttlMs: number;
}

export const AUTH_FAILURE_POLICY = Symbol('AUTH_FAILURE_POLICY');

/** Blocked addresses remembered per instance (the shared count still refuses the others). */
const MAX_REMEMBERED_BLOCKS = 10_000;

/** API-key failures, counted apart from guesses at secrets people hold (docs/accounts.md). */
const KEY_FAILURES = { keyPrefix: 'auth-failures', noun: 'a missing or invalid API key' };

/** Passwords and the admin token (secrets a person holds or may leak) share one budget per client IP. */
const GUESS_NOUN = 'failed log-ins or admin bearer tokens';

/** One guess under way; released when it proves right (only failures count). */
export interface Guess {
  release(): Promise<void>;
}

/**
 * The brute-force guard, per client IP. Missing or invalid API keys are counted once they failed
 * (fixed windows): a valid key always passes, whatever else came from that address. Passwords and
 * the admin token share one budget of guesses (a sliding window): a guess is reserved before the
 * secret is compared and released when it was right, so a throttled guesser learns nothing and a
 * concurrent burst gets no more comparisons than the limit. For API keys, past the limit a failure
 * gets 429 instead of 401 for the rest of the window; this instance remembers the block so that
 * further failures cost no store round trip, and every other instance learns it on that IP's next
 * failure, from the shared count.
 */
@Injectable()
export class FailedAuthLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(AUTH_FAILURE_POLICY) private readonly policy: AuthFailurePolicy,
  ) {}

  /**
   * Reserves one guess at a password or the admin token from `ip`, or refuses (429) when the
   * address has used its budget; the reservation counts as a failure unless released. API keys
   * have no such check: their 160 random bits are unguessable, and a valid one always passes.
   */
  async reserveGuess(ip: string): Promise<Guess> {
    const limit = { name: 'ip', limit: this.policy.limit, windowMs: this.policy.ttlMs };
    const group = `guesses:${ip}`;
    const reservation = await this.store.reserve(group, [limit]);
    if (!reservation.granted) throw this.tooManyFailures(GUESS_NOUN, reservation.retryInMs);
    return { release: () => this.store.release(group, [limit.name], reservation.id) };
  }

  /**
   * Handles one failed API key: throws 429 when the IP is over the limit (already known, or with
   * this failure), and returns otherwise, for the caller to throw its 401.
   */
  async recordKeyFailure(ip: string, now = Date.now()): Promise<void> {
    const key = `${KEY_FAILURES.keyPrefix}:${ip}`;
    const until = this.blockedUntil.get(key);
    if (until !== undefined) {
      if (until > now) throw this.tooManyFailures(KEY_FAILURES.noun, until - now);
      this.blockedUntil.delete(key);
    }
    const [usage] = await this.store.hit(key, [this.window()]);
    if (!isOver(usage)) return;
    this.remember(key, usage.resetAt - usage.now + Date.now(), now);
    throw this.tooManyFailures(KEY_FAILURES.noun, usage.resetAt - usage.now);
  }

  /** Blocks come from clients' addresses: past MAX_REMEMBERED_BLOCKS the lapsed ones are dropped. */
  private remember(key: string, until: number, now: number): void {
    if (this.blockedUntil.size >= MAX_REMEMBERED_BLOCKS) {
      for (const [blocked, end] of this.blockedUntil) if (end <= now) this.blockedUntil.delete(blocked);
    }
    if (this.blockedUntil.size < MAX_REMEMBERED_BLOCKS) this.blockedUntil.set(key, until);
  }

  private window() {
    return { name: 'auth', limit: this.policy.limit, ttlMs: this.policy.ttlMs };
  }

  private tooManyFailures(noun: string, retryInMs: number): AppError {
    return new AppError(
      ErrorCode.RATE_LIMIT_EXCEEDED,
      `Too many requests with ${noun} from this address. Retry after the time in Retry-After.`,
      undefined,
      retryAfter(retryInMs),
    );
  }
}
