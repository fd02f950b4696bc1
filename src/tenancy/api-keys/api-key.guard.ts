import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../../common/access/access-rule.guard';
import { InvalidApiKeyError } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';
import { FailedAuthLimiter } from '../../rate-limit/failed-auth.limiter';
import { ApiKeysService } from './api-keys.service';

export const API_KEY_HEADER = 'x-api-key';

/**
 * Authenticates API-key routes from the X-API-Key header (never the query string); failures
 * count towards the per-IP brute-force limit.
 */
@Injectable()
export class ApiKeyGuard implements AccessCheck {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly failedAuth: FailedAuthLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AppRequest>();
    const ip = request.ip ?? request.socket.remoteAddress ?? 'unknown';
    this.failedAuth.assertNotBlocked(ip);
    try {
      request.principal = await this.apiKeys.authenticate(request.header(API_KEY_HEADER));
    } catch (error) {
      if (error instanceof InvalidApiKeyError) await this.failedAuth.recordFailure(ip);
      throw error;
    }
    return true;
  }
}
