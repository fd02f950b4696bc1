import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { retryAfter } from '../common/http/retry-after';
import { APP_CONFIG, type AppConfig } from '../config/env';
import type { Plan } from '../generated/prisma/enums';
import { isOver, RATE_LIMIT_STORE, type RateLimitStore, type WindowSpec, type WindowUsage } from '../rate-limit/rate-limit.store';

const DAY_MS = 86_400_000;
const RESET_MAILS: WindowSpec = { name: 'reset-mails', limit: 3, ttlMs: 3_600_000 };
const invitationsPerDay = (plan: Plan) => (plan === 'free' ? 20 : 200);

/**
 * The accounts' abuse limits (API_DECISIONS part 4, Fixes to part 3), counted in the shared
 * rate-limit store (Redis when configured) so that every instance sees the same counts. Client
 * addresses arrive as clientIp() gives them: IPv6 by /64. Each refusal is 429 RATE_LIMIT_EXCEEDED
 * with Retry-After, except reset mails, which are dropped silently.
 */
@Injectable()
export class AccountLimits {
  private readonly newPasswords: WindowSpec;
  private readonly signUps: WindowSpec;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {
    const { multiplier } = config.rateLimit;
    this.newPasswords = { name: 'new-passwords', limit: config.rateLimit.newPasswordsPerMinute * multiplier, ttlMs: 60_000 };
    this.signUps = { name: 'sign-ups', limit: config.rateLimit.signUpsPerDay * multiplier, ttlMs: DAY_MS };
  }

  /**
   * Sign-ups, reset confirmations and invitation accepts from one address, together: each may cost
   * a password hash, so they are counted before any is computed.
   */
  async countNewPassword(clientIp: string): Promise<void> {
    const [usage] = await this.store.hit(`new-passwords:${clientIp}`, [this.newPasswords]);
    if (isOver(usage)) throw tooMany(usage, `Too many sign-ups, password resets and invitation accepts from this address: ${usage.limit} a minute.`);
  }

  /** New tenants from one address a (UTC) day. */
  async countSignUp(clientIp: string): Promise<void> {
    const [usage] = await this.store.hit(`sign-ups:${clientIp}`, [this.signUps]);
    if (isOver(usage)) throw tooMany(usage, `Too many sign-ups from this address: ${usage.limit} a day.`);
  }

  /** Whether one more reset mail may go to this user this hour (3); past it nothing is sent and no token issued. */
  async takeResetMail(userId: string): Promise<boolean> {
    const [usage] = await this.store.hit(`reset-mails:${userId}`, [RESET_MAILS]);
    return !isOver(usage);
  }

  /** Invitations a tenant sends a (UTC) day: 20 on Free, 200 on the other plans. */
  async countInvitation(tenantId: string, plan: Plan): Promise<void> {
    const [usage] = await this.store.hit(`invitations:${tenantId}`, [{ name: 'invitations', limit: invitationsPerDay(plan), ttlMs: DAY_MS }]);
    if (isOver(usage)) throw tooMany(usage, `Too many invitations today: ${usage.limit} a day on this plan.`);
  }
}

function tooMany(usage: WindowUsage, message: string): AppError {
  return new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, `${message} Retry after the time in Retry-After.`, undefined, retryAfter(usage.resetAt - usage.now));
}
