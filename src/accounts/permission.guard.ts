import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { accessRuleOf, type AccessRule } from '../common/access/access.decorators';
import { missingScopes } from '../common/access/scopes';
import { AppError, InsufficientScopeError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal, AppRequest, KeyPrincipal, UserPrincipal } from '../common/http/request-context';
import { isManager } from './roles';

export const insufficientRole = (message: string) => new AppError(ErrorCode.INSUFFICIENT_ROLE, message);

/**
 * Why this caller may not call a route with this rule, or nothing when it may: the one decision of
 * what an authenticated caller may do. A key holds its scopes, a member the scopes of their role
 * (ROLE_SCOPES, attached by the membership check); both are compared with the route's by
 * missingScopes. Who the caller is (key, session, membership) was settled by the checks before.
 */
export function permissionRefusal(rule: AccessRule | undefined, principal: ApiPrincipal | undefined): AppError | undefined {
  if (!rule || !principal) return undefined;
  return principal.kind === 'apiKey' ? keyRefusal(rule, principal) : memberRefusal(rule, principal);
}

function keyRefusal(rule: AccessRule, key: KeyPrincipal): AppError | undefined {
  switch (rule.kind) {
    case 'apiKey': {
      // Public keys are for the widget: they may call routes that need no scope (GET /api/v1/verify) and nothing else.
      if (rule.scopes.length && key.apiKey.type === 'public') {
        return new InsufficientScopeError('Public keys (svc_pk_) can only verify themselves; use a secret key for this endpoint.');
      }
      const missing = missingScopes(key.scopes, rule.scopes);
      return missing.length ? new InsufficientScopeError(`This endpoint requires the scope ${missing.join(', ')}.`) : undefined;
    }
    case 'widget':
    case 'visitor':
      // A secret key belongs on a server, never in a page: a widget call made with one is refused
      // so that the mistake shows before it leaks (API_DECISIONS, Widget).
      return key.apiKey.type === 'public'
        ? undefined
        : new InsufficientScopeError('Widget endpoints take a public key (svc_pk_); a secret key must never be used in a web page.');
    case 'tenantUser':
      // A valid key on a users-only route (members, invitations, keys...): 403, as for a scope it cannot hold.
      return new InsufficientScopeError("This endpoint is for the dashboard's signed-in users; API keys cannot call it.");
    default:
      return undefined;
  }
}

function memberRefusal(rule: AccessRule, member: UserPrincipal): AppError | undefined {
  if (rule.kind !== 'apiKey' && rule.kind !== 'tenantUser') return undefined;
  const missing = missingScopes(member.scopes, rule.scopes ?? []);
  if (missing.length) return insufficientRole(`Your role (${member.user.role}) does not allow this: it needs ${missing.join(', ')}.`);
  if (rule.kind === 'tenantUser' && rule.role === 'manager' && !isManager(member.user.role)) {
    return insufficientRole(`Only owners and admins may do this; your role is ${member.user.role}.`);
  }
  return undefined;
}

/**
 * The check of what the caller may do, for every kind of caller that brings a key or a member
 * (caller-checks.ts places it in each list): the route's scopes, the kind of key, the role.
 */
@Injectable()
export class PermissionGuard implements AccessCheck {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const refusal = permissionRefusal(accessRuleOf(this.reflector, context), context.switchToHttp().getRequest<AppRequest>().principal);
    if (refusal) throw refusal;
    return true;
  }
}
