import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AccessCheck } from '../access/access-rule.guard';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { AppError } from '../errors/app-error';
import { ErrorCode } from '../errors/error-codes';
import { isLoopbackHost } from './loopback';

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The CSRF defence of cookie-authenticated requests (API_DECISIONS part 3 and 4): a POST, PUT,
 * PATCH or DELETE must carry `Origin` equal to the service's own origin (ownOrigin). Browsers send
 * Origin on every such request and scripts cannot forge it; a request without one did not come
 * from our pages. No token to store or send: the dashboard is same-origin, and no CORS header is
 * ever sent here.
 */
@Injectable()
export class SameOriginGuard implements AccessCheck {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (!UNSAFE_METHODS.has(request.method)) return true;
    const origin = request.headers.origin;
    const own = ownOrigin(request, this.config);
    if (origin !== undefined && own !== undefined && origin === own) return true;
    throw new AppError(ErrorCode.CSRF_REJECTED, "Cross-site request refused: a signed-in change must come from the service's own pages (its Origin header).");
  }
}

/**
 * The service's own origin, as a browser on its pages sends it in Origin: PUBLIC_URL's. Without it
 * (development only: production refuses to start) the request's own scheme and host, but only
 * when that host is a loopback name or address: a page on any other name that reaches this
 * service (a proxy forwarding every Host, DNS rebinding) would send an Origin matching its Host.
 */
export function ownOrigin(request: Request, config: Pick<AppConfig, 'publicOrigin'>): string | undefined {
  if (config.publicOrigin) return config.publicOrigin;
  const host = request.get('host');
  return isLoopbackHost(host) ? `${request.protocol}://${host}` : undefined;
}
