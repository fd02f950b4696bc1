import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AccessCheck } from '../../common/access/access-rule.guard';
import { accessRuleOf } from '../../common/access/access.decorators';
import { InsufficientScopeError } from '../../common/errors/app-error';
import type { AppRequest } from '../../common/http/request-context';

/**
 * Checks the route's scopes against the key's. Public keys are for widget initialisation:
 * they may call routes that need no scope (GET /api/v1/verify) and nothing else.
 */
@Injectable()
export class ScopesGuard implements AccessCheck {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rule = accessRuleOf(this.reflector, context);
    const principal = context.switchToHttp().getRequest<AppRequest>().principal;
    const scopes = rule?.kind === 'apiKey' ? rule.scopes : [];
    if (!principal || scopes.length === 0) return true;
    if (principal.apiKey?.type === 'public') {
      throw new InsufficientScopeError('Public keys (svc_pk_) can only verify themselves; use a secret key for this endpoint.');
    }
    const missing = scopes.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length) throw new InsufficientScopeError(`This endpoint requires the scope ${missing.join(', ')}.`);
    return true;
  }
}
