import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import { isOver, isUsedUp, RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';

export interface AuthFailurePolicy {
  limit: number;
  ttlMs: number;
}

export const AUTH_FAILURE_POLICY = Symbol('AUTH_FAILURE_POLICY');

/** Blocked addresses remembered per instance (the shared count still refuses the others). */
const MAX_REMEMBERED_BLOCKS = 10_000;

/** What a failure was an attempt at; each has its own count per IP (same limit). */
export type CredentialKind = 'apiKey' | 'adminToken' | 'password';

const CREDENTIALS: Readonly<Record<CredentialKind, { keyPrefix: string; noun: string }>> = {
  apiKey: { keyPrefix: 'auth-failures', noun: 'a missing or invalid API key' },
  adminToken: { keyPrefix: 'admin-auth-failures', noun: 'a missing or invalid admin bearer token' },
  password: { keyPrefix: 'login-failures', noun: 'failed log-ins' },
};

/**
 * The brute-force guard: requests with a missing or invalid credential are counted per client IP
 * and kind of credential in the shared store. It throttles failures only: callers consult it once
 * a credential has failed, so a valid key or token always passes, whatever else came from that
 * address. Past the limit, a failure gets 429 instead of 401 for the rest of the window; this
 * instance remembers the block so that further failures cost no store round trip, and every other
 * instance learns it on that IP's next failure, from the shared count.
 */
@Injectable()
export class FailedAuthLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(AUTH_FAILURE_POLICY) private readonly policy: AuthFailurePolicy,
  ) {}

  /**
   * Refuses (429) an address already over its limit, before its credential is compared: a token
   * or password guessed right while throttled must earn nothing (API_DECISIONS part 3,
   * Throttling). Used where the credential is a secret a person chose or may leak (passwords, the
   * admin token); API keys keep "a valid key always passes", their 192 random bits being unguessable.
   */
  async assertNotBlocked(kind: CredentialKind, ip: string, now = Date.now()): Promise<void> {
    const key = this.keyOf(kind, ip);
    const until = this.blockedUntil.get(key);
    if (until !== undefined && until > now) throw this.tooManyFailures(kind, until - now);
    const [usage] = await this.store.peek(key, [this.window()]);
    if (!isUsedUp(usage)) return;
    this.remember(key, usage.resetAt - usage.now + now, now);
    throw this.tooManyFailures(kind, usage.resetAt - usage.now);
  }

  /**
   * Handles one failed attempt: throws 429 when the IP is over the limit (already known, or with
   * this failure), and returns otherwise, for the caller to throw its 401.
   */
  async recordFailure(kind: CredentialKind, ip: string, now = Date.now()): Promise<void> {
    const key = this.keyOf(kind, ip);
    const until = this.blockedUntil.get(key);
    if (until !== undefined) {
      if (until > now) throw this.tooManyFailures(kind, until - now);
      this.blockedUntil.delete(key);
    }
    const [usage] = await this.store.hit(key, [this.window()]);
    if (!isOver(usage)) return;
    this.remember(key, usage.resetAt - usage.now + Date.now(), now);
    throw this.tooManyFailures(kind, usage.resetAt - usage.now);
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

  private keyOf(kind: CredentialKind, ip: string): string {
    return `${CREDENTIALS[kind].keyPrefix}:${ip}`;
  }

  private tooManyFailures(kind: CredentialKind, retryInMs: number): AppError {
    return new AppError(
      ErrorCode.RATE_LIMIT_EXCEEDED,
      `Too many requests with ${CREDENTIALS[kind].noun} from this address. Retry after the time in Retry-After.`,
      undefined,
      retryAfter(retryInMs),
    );
  }
}
