import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import { FailedAuthLimiter } from '../rate-limit/failed-auth.limiter';
import { isUsedUp, RATE_LIMIT_STORE, type RateLimitStore, type WindowSpec, type WindowUsage } from '../rate-limit/rate-limit.store';
import { emailKeyOf } from './users/users.repository';

/** API_DECISIONS part 3, Throttling: 10 failures for one e-mail from one address in 15 minutes... */
const EMAIL_FROM_IP: WindowSpec = { name: 'email-ip', limit: 10, ttlMs: 15 * 60_000 };
/** ...and 100 for one e-mail from anywhere in an hour. */
const EMAIL_ANYWHERE: WindowSpec = { name: 'email', limit: 100, ttlMs: 3_600_000 };

/**
 * Password guessing, throttled three ways, and always before the password is compared, so that a
 * throttled guesser learns nothing even from the right password: per client address (the shared
 * failed-authentication limit), per e-mail and address, per e-mail overall. Only failures count,
 * so a person who types their password right is never slowed by their own successes. The e-mail
 * is hashed into the counters' keys: no address book in Redis.
 */
@Injectable()
export class LoginThrottle {
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    private readonly failedAuth: FailedAuthLimiter,
  ) {}

  /** 429 (with Retry-After) when any of the three limits is used up. */
  async assertAllowed(email: string, ip: string): Promise<void> {
    await this.failedAuth.assertNotBlocked('password', ip);
    const [fromIp, anywhere] = await Promise.all([
      this.store.peek(this.emailIpKey(email, ip), [EMAIL_FROM_IP]),
      this.store.peek(this.emailKey(email), [EMAIL_ANYWHERE]),
    ]);
    const blocking = [...fromIp, ...anywhere].find(isUsedUp);
    if (blocking) throw tooMany(blocking);
  }

  /** Counts one failure under all three; 429 when this one went over the address's limit. */
  async recordFailure(email: string, ip: string): Promise<void> {
    await Promise.all([this.store.hit(this.emailIpKey(email, ip), [EMAIL_FROM_IP]), this.store.hit(this.emailKey(email), [EMAIL_ANYWHERE])]);
    await this.failedAuth.recordFailure('password', ip);
  }

  private emailKey(email: string): string {
    return `login-email:${hashed(email)}`;
  }

  private emailIpKey(email: string, ip: string): string {
    return `login-email-ip:${hashed(email)}:${ip}`;
  }
}

const hashed = (email: string) => createHash('sha256').update(emailKeyOf(email)).digest('base64url').slice(0, 22);

function tooMany(window: WindowUsage): AppError {
  const what = window.name === EMAIL_FROM_IP.name ? 'from this address for this e-mail' : 'for this e-mail';
  return new AppError(
    ErrorCode.RATE_LIMIT_EXCEEDED,
    `Too many failed log-ins ${what}. Retry after the time in Retry-After, or reset the password.`,
    undefined,
    retryAfter(window.resetAt - window.now),
  );
}
