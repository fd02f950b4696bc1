import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../../common/access/access-rule.guard';
import { InsufficientScopeError } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';

/**
 * Widget routes take public keys only: a secret key belongs on a server, never in a page, and a
 * widget call made with one is refused so that the mistake shows before it leaks (API_DECISIONS,
 * Widget).
 */
@Injectable()
export class WidgetKeyGuard implements AccessCheck {
  canActivate(context: ExecutionContext): boolean {
    const principal = context.switchToHttp().getRequest<AppRequest>().principal;
    if (principal?.apiKey?.type !== 'public') {
      throw new InsufficientScopeError('Widget endpoints take a public key (svc_pk_); a secret key must never be used in a web page.');
    }
    return true;
  }
}
