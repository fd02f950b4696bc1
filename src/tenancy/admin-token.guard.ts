import { createHash, timingSafeEqual } from 'node:crypto';
import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { APP_CONFIG, type AppConfig } from '../config/env';

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * Admin routes take `Authorization: Bearer <ADMIN_API_TOKEN>`, compared in constant time (both
 * sides hashed first, so neither content nor length leaks). Unset token: the admin API is off.
 */
@Injectable()
export class AdminTokenGuard implements AccessCheck {
  private readonly expected?: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = config.adminApiToken ? sha256(config.adminApiToken) : undefined;
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) throw new NotFoundError('Route');
    const header = context.switchToHttp().getRequest<Request>().header('authorization') ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    if (!match || !timingSafeEqual(sha256(match[1]), this.expected)) {
      throw new AppError(ErrorCode.UNAUTHORIZED, 'A valid admin bearer token is required.');
    }
    return true;
  }
}
