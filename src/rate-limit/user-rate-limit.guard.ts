import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest } from '../common/http/request-context';
import { RATE_LIMIT_DISABLED } from './plan-limits';
import type { Response } from 'express';
import { RATE_LIMIT_STORE, type RateLimitStore, type WindowSpec } from './rate-limit.store';
import { writeRateLimitHeaders } from './rate-limit-headers';

/** A user's own limit (API_DECISIONS part 3): 600 requests a minute, whatever the tenant (times RATE_LIMIT_MULTIPLIER). */
export const USER_REQUESTS_PER_MINUTE = 600;
export const USER_WINDOW = Symbol('USER_WINDOW');

/**
 * The dashboard's users are never counted against the tenant's API quota (their clicks must not
 * stop the tenant's integrations, nor the reverse); each user has a limit of their own instead.
 * Its answers carry the same headers as a key's, for the user's window (`"user"`, 60 seconds).
 */
@Injectable()
export class UserRateLimitGuard implements AccessCheck {
  constructor(
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(RATE_LIMIT_DISABLED) private readonly disabled: boolean,
    @Inject(USER_WINDOW) private readonly window: WindowSpec,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const userId = http.getRequest<AppRequest>().session?.user.id;
    if (!userId || this.disabled) return true;
    const [usage] = await this.store.hit(`user:${userId}`, [this.window]);
    if (!writeRateLimitHeaders(http.getResponse<Response>(), usage, [usage])) return true;
    throw new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, `Rate limit exceeded: ${usage.limit} requests a minute per user. Retry after the time in Retry-After.`);
  }
}
