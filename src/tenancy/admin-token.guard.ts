import { createHash, timingSafeEqual } from 'node:crypto';
import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { clientIp } from '../rate-limit/client-ip';
import { FailedAuthLimiter } from '../rate-limit/failed-auth.limiter';

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * Admin routes take `Authorization: Bearer <ADMIN_API_TOKEN>`, compared in constant time (both
 * sides hashed first, so neither content nor length leaks). Unset token: the admin API is off.
 * Every request takes a guess from its address's budget (shared with log-ins: a guesser must not
 * double its tries by alternating) before the token is compared, and gives it back when the token
 * was right; past the budget every request from that address is 429, so the right token guessed
 * while throttled earns nothing (API_DECISIONS part 3: 3,000 wrong tokens then the right one
 * answered 200 before), nor does a concurrent burst get more comparisons than the budget.
 */
@Injectable()
export class AdminTokenGuard implements AccessCheck {
  private readonly expected?: Buffer;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly failedAuth: FailedAuthLimiter,
  ) {
    this.expected = config.adminApiToken ? sha256(config.adminApiToken) : undefined;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.expected) throw new NotFoundError('Route');
    const request = context.switchToHttp().getRequest<Request>();
    const guess = await this.failedAuth.reserveGuess(clientIp(request));
    const match = /^Bearer (.+)$/.exec(request.header('authorization') ?? '');
    if (!match || !timingSafeEqual(sha256(match[1]), this.expected)) throw new AppError(ErrorCode.UNAUTHORIZED, 'A valid admin bearer token is required.');
    await guess.release();
    return true;
  }
}
