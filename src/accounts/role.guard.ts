import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { accessRuleOf } from '../common/access/access.decorators';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest } from '../common/http/request-context';
import { isManager } from './roles';

export const insufficientRole = (message: string) => new AppError(ErrorCode.INSUFFICIENT_ROLE, message);

/**
 * A user's last check: the role allows the route. On a key's route, the role's scopes must hold
 * the route's, as a key's would; on a users-only route for managers, the role is owner or admin.
 */
@Injectable()
export class RoleGuard implements AccessCheck {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rule = accessRuleOf(this.reflector, context);
    const principal = context.switchToHttp().getRequest<AppRequest>().principal;
    if (!principal?.user) return true;
    if (rule?.kind === 'apiKey' || rule?.kind === 'tenantUser') {
      const missing = (rule.scopes ?? []).filter((scope) => !principal.scopes.includes(scope));
      if (missing.length) throw insufficientRole(`Your role (${principal.user.role}) does not allow this: it needs ${missing.join(', ')}.`);
    }
    if (rule?.kind === 'tenantUser' && rule.role === 'manager' && !isManager(principal.user.role)) {
      throw insufficientRole(`Only owners and admins may do this; your role is ${principal.user.role}.`);
    }
    return true;
  }
}
