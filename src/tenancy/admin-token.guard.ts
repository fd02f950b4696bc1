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
 * Wrong or missing tokens count towards the per-IP failure limit; past it every request from that
 * address is 429 before the token is compared, so the right token guessed while throttled earns
 * nothing (API_DECISIONS part 3: 3,000 wrong tokens then the right one answered 200 before).
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
    await this.failedAuth.assertNotBlocked('adminToken', clientIp(request));
    const match = /^Bearer (.+)$/.exec(request.header('authorization') ?? '');
    if (!match || !timingSafeEqual(sha256(match[1]), this.expected)) {
      await this.failedAuth.recordFailure('adminToken', clientIp(request));
      throw new AppError(ErrorCode.UNAUTHORIZED, 'A valid admin bearer token is required.');
    }
    return true;
  }
}
