import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest } from '../common/http/request-context';
import { VisitorTokens } from './visitor-token';

/**
 * The last check of a visitor route: `X-Visitor-Token` must be a genuine, unexpired token of the
 * public key's tenant. It attaches the visitor to the request (`@Visitor()` hands it on); anything
 * else is 401 INVALID_VISITOR_TOKEN, before the body is read.
 */
@Injectable()
export class VisitorTokenGuard implements AccessCheck {
  constructor(private readonly tokens: VisitorTokens) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AppRequest>();
    const header = request.headers['x-visitor-token'];
    const claims = this.tokens.verify(typeof header === 'string' ? header : undefined);
    if (!claims || claims.tenantId !== request.principal?.tenant.id) {
      throw new AppError(
        ErrorCode.INVALID_VISITOR_TOKEN,
        'Send the visitor token of the session in X-Visitor-Token (POST /api/v1/widget/sessions gives one; it lasts 24 hours).',
      );
    }
    request.visitor = { tenantId: claims.tenantId, botId: claims.botId, visitorId: claims.visitorId };
    return true;
  }
}
