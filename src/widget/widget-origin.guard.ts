import { ExecutionContext, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest } from '../common/http/request-context';
import { TenantSettingsCache } from '../settings/tenant-settings-cache';
import { withdrawCors } from './widget-cors';

/**
 * The last widget check: a browser request from an origin the tenant did not list is refused,
 * and its answer carries no CORS headers, so the page cannot read it either. An empty list allows
 * any origin; a request without Origin (not from a browser page) is not an embedding to police.
 */
@Injectable()
export class WidgetOriginGuard implements AccessCheck {
  constructor(private readonly settings: TenantSettingsCache) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AppRequest>();
    const origin = request.headers.origin;
    if (!origin || !request.principal) return true;
    const settings = await this.settings.of(request.principal.tenant.id);
    if (!settings?.allowedOrigins.length || settings.allowedOrigins.includes(origin.toLowerCase())) return true;
    withdrawCors(context.switchToHttp().getResponse<Response>());
    throw new AppError(ErrorCode.ORIGIN_NOT_ALLOWED, 'This site is not one of the origins allowed to embed the widget (settings: allowedOrigins).');
  }
}
