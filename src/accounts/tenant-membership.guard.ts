import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest, SessionContext, UserPrincipal } from '../common/http/request-context';
import { isUuid } from '../common/validation/uuid';
import { ROLE_SCOPES } from './roles';

export const TENANT_HEADER = 'x-tenant-id';

type Membership = SessionContext['memberships'] extends ReadonlyMap<string, infer M> ? M : never;

/**
 * A user names the tenant of the request in X-Tenant-Id (400 TENANT_REQUIRED without it) and must
 * be its member (403 NOT_A_MEMBER); the request then carries the tenant and the role's scopes, as
 * a key's request carries its key's.
 */
@Injectable()
export class TenantMembershipGuard implements AccessCheck {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AppRequest>();
    const tenantId = request.header(TENANT_HEADER);
    if (!tenantId || !isUuid(tenantId)) {
      throw new AppError(ErrorCode.TENANT_REQUIRED, 'Name the tenant of this request in the X-Tenant-Id header (a tenant id from your memberships).');
    }
    const membership = request.session?.memberships.get(tenantId.toLowerCase());
    if (!membership) throw new AppError(ErrorCode.NOT_A_MEMBER, 'You are not a member of this tenant.');
    request.principal = principalOf(request.session!.user.id, membership);
    return true;
  }
}

// One principal per cached membership, shared by the requests it serves (frozen).
const principals = new WeakMap<Membership, UserPrincipal>();

function principalOf(userId: string, membership: Membership): UserPrincipal {
  let principal = principals.get(membership);
  if (!principal) {
    principal = Object.freeze({
      kind: 'user' as const,
      tenant: membership.tenant,
      scopes: ROLE_SCOPES[membership.role],
      user: Object.freeze({ id: userId, role: membership.role }),
    });
    principals.set(membership, principal);
  }
  return principal;
}
