import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { accessRuleOf } from '../../common/access/access.decorators';
import type { AppRequest } from '../../common/http/request-context';
import { ApiKeysService } from './api-keys.service';

export const API_KEY_HEADER = 'x-api-key';

/** Authenticates API-key routes from the X-API-Key header (never the query string). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (accessRuleOf(this.reflector, context)?.kind !== 'apiKey') return true;
    const request = context.switchToHttp().getRequest<AppRequest>();
    request.principal = await this.apiKeys.authenticate(request.header(API_KEY_HEADER));
    return true;
  }
}
