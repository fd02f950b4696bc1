import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import { FailedAuthLimiter } from '../rate-limit/failed-auth.limiter';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../rate-limit/rate-limit.store';
import type { SlidingLimit } from '../rate-limit/sliding-log';
import { emailKeyOf } from './users/users.repository';

/** API_DECISIONS part 3, Throttling: 10 failures for one e-mail from one address in 15 minutes... */
const FROM_ADDRESS = { limit: 10, windowMs: 15 * 60_000 };
/** ...and (part 4) 100 for one e-mail from anywhere in the last hour, for browsers the e-mail has not signed in on. */
const ANYWHERE_NAME = 'anywhere';
const ANYWHERE = { limit: 100, windowMs: 3_600_000 };

/**
 * Password guessing, throttled three ways: per client address (the budget of guesses it shares
 * with the admin token), per e-mail and address, per e-mail from anywhere. Each guess is reserved
 * under all three BEFORE the password is compared and given back when it was right: a throttled
 * guesser learns nothing even from the right password, a concurrent burst gets no more
 * comparisons than the limits, and a person who types their password right is never slowed by
 * their own successes. The windows slide (a failure counts for exactly its window), so an
 * attacker cannot restart the count at a clock hour. The per-e-mail limit is what a stranger can
 * use to lock a user out, so it spares a browser holding the user's device cookie, and a
 * completed password reset forgets the e-mail's counts. The e-mail is hashed into the counters'
 * keys: no address book in Redis.
 */
@Injectable()
export class LoginThrottle {
  /** RATE_LIMIT_MULTIPLIER (load testing only) scales these like every other limit: a right guess holds its place while compared. */
  private readonly multiplier: number;

  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    private readonly failedAuth: FailedAuthLimiter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.multiplier = config.rateLimit.multiplier;
  }

  /**
   * Runs `check` (finding the account and comparing the password; `undefined` when wrong) as one
   * guess, or answers 429 (with Retry-After) without running it when a limit is used up.
   * `trustedDevice`: the browser proved this e-mail's password before (its device cookie).
   */
  async attempt<T>(email: string, ip: string, trustedDevice: boolean, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const fromIp = await this.failedAuth.reserveGuess(ip);
    const group = groupOf(email);
    const fromAddress: SlidingLimit = { name: `from:${ip}`, limit: FROM_ADDRESS.limit * this.multiplier, windowMs: FROM_ADDRESS.windowMs };
    const anywhere: SlidingLimit = { name: ANYWHERE_NAME, limit: ANYWHERE.limit * this.multiplier, windowMs: ANYWHERE.windowMs };
    const limits = trustedDevice ? [fromAddress] : [fromAddress, anywhere];
    const forEmail = await this.store.reserve(group, limits);
    if (!forEmail.granted) {
      await fromIp.release();
      throw tooMany(forEmail.name === ANYWHERE_NAME ? 'for this e-mail' : 'from this address for this e-mail', forEmail.retryInMs);
    }
    const giveBack = () =>
      Promise.all([
        fromIp.release(),
        this.store.release(
          group,
          limits.map((limit) => limit.name),
          forEmail.id,
        ),
      ]);
    let result: T | undefined;
    try {
      result = await check();
    } catch (error) {
      // Not a wrong password (the database or the hashing budget failed): not a failure either.
      await giveBack();
      throw error;
    }
    if (result !== undefined) await giveBack();
    return result;
  }

  /** A completed password reset: the e-mail's failures are forgotten (the address budgets stay). */
  async forgetFailures(email: string): Promise<void> {
    await this.store.forget(groupOf(email));
  }
}

const groupOf = (email: string) => `login:${createHash('sha256').update(emailKeyOf(email)).digest('base64url').slice(0, 22)}`;

function tooMany(what: string, retryInMs: number): AppError {
  return new AppError(
    ErrorCode.RATE_LIMIT_EXCEEDED,
    `Too many failed log-ins ${what}. Retry after the time in Retry-After, or reset the password.`,
    undefined,
    retryAfter(retryInMs),
  );
}
