import { ExecutionContext, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AccessCheck } from '../../common/access/access-rule.guard';
import { InvalidApiKeyError } from '../../common/errors/app-error';
import type { AppRequest, KeyPrincipal } from '../../common/http/request-context';
import { clientIp } from '../../rate-limit/client-ip';
import { FailedAuthLimiter } from '../../rate-limit/failed-auth.limiter';
import { ApiKeyActivityRecorder } from './api-key-activity.recorder';
import { ApiKeysService } from './api-keys.service';

export const API_KEY_HEADER = 'x-api-key';

/**
 * Authenticates API-key routes from the X-API-Key header (never the query string). Only failures
 * meet the per-IP brute-force limit: a valid key passes even from an address over that limit, and
 * a missing or malformed key is refused before any lookup (authenticate checks its form first).
 * The answer to an authenticated key is counted in the key's activity once it is sent.
 */
@Injectable()
export class ApiKeyGuard implements AccessCheck {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly failedAuth: FailedAuthLimiter,
    private readonly activity: ApiKeyActivityRecorder,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AppRequest>();
    let principal: KeyPrincipal;
    try {
      principal = request.principal = await this.apiKeys.authenticate(request.header(API_KEY_HEADER));
    } catch (error) {
      if (error instanceof InvalidApiKeyError) await this.failedAuth.recordKeyFailure(clientIp(request));
      throw error;
    }
    // Every answer to an authenticated key counts in its activity, refusals after this check included.
    const { tenant, apiKey } = principal;
    const response = context.switchToHttp().getResponse<Response>();
    response.once('finish', () => this.activity.count(tenant.id, apiKey.id, response.statusCode));
    return true;
  }
}
