import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Scope } from './scopes';
import type { ApiPrincipal, AppRequest, SessionContext, VisitorPrincipal } from '../http/request-context';

/** Who may call a route. Every route declares one; a route without it is refused. */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'admin' }
  | { kind: 'apiKey'; scopes: readonly Scope[] }
  | { kind: 'widget' }
  | { kind: 'visitor' }
  | { kind: 'tenantUser'; role: UserRouteRole; scopes?: readonly Scope[] }
  | { kind: 'session' }
  | { kind: 'signIn' };

/** Who among a tenant's users may call a users-only route: any member, or owners and admins. */
export type UserRouteRole = 'member' | 'manager';

/**
 * The kinds of caller; each has its own list of checks (CallerChecks). A route's rule names who
 * may call it, the request decides which kind of caller it is (callerKindOf): an `apiKey` route
 * is called by a key (X-API-Key) or by a signed-in user (the session cookie, no X-API-Key).
 */
export type CallerKind = Exclude<AccessRule['kind'], 'tenantUser'> | 'user' | 'keyOnUserRoute';

export const SESSION_COOKIE = 'svc_session';

/** Which kind of caller a request to a route with this rule is (API_DECISIONS part 3: a key's request wins over a cookie). */
export function callerKindOf(rule: AccessRule, request: { headers: Record<string, string | string[] | undefined> }): CallerKind {
  switch (rule.kind) {
    case 'apiKey':
      return request.headers['x-api-key'] === undefined && hasSessionCookie(request.headers.cookie) ? 'user' : 'apiKey';
    case 'tenantUser':
      return request.headers['x-api-key'] === undefined ? 'user' : 'keyOnUserRoute';
    default:
      return rule.kind;
  }
}

function hasSessionCookie(cookie: string | string[] | undefined): boolean {
  return typeof cookie === 'string' && cookie.includes(`${SESSION_COOKIE}=`);
}

export const Access = Reflector.createDecorator<AccessRule>();

/** Open to anyone: health probes and the API description. */
export const Public = () => Access({ kind: 'public' });

/** The dashboard's admin API: the bearer token from ADMIN_API_TOKEN. */
export const AdminOnly = () => Access({ kind: 'admin' });

/** The chat widget: a valid public key (svc_pk_) of a tenant with API access; secret keys are refused. */
export const WidgetOnly = () => Access({ kind: 'widget' });

/** A widget visitor: the widget's checks, then a valid X-Visitor-Token of the key's tenant (401 INVALID_VISITOR_TOKEN). */
export const VisitorOnly = () => Access({ kind: 'visitor' });

/**
 * A valid API key of a tenant with API access, holding every scope listed (none: any valid key);
 * or a signed-in member of the tenant named in X-Tenant-Id whose role holds those scopes.
 */
export const RequireScopes = (...scopes: Scope[]) => Access({ kind: 'apiKey', scopes });

/**
 * The dashboard's users only (keys get 403): any member of the tenant, or its owners and admins;
 * with scopes, only members whose role also holds them (assigning conversations: conversations:write).
 */
export const UsersOnly = (role: UserRouteRole, ...scopes: Scope[]) =>
  Access(scopes.length ? { kind: 'tenantUser', role, scopes } : { kind: 'tenantUser', role });

/** A signed-in user, whatever their tenants (`/auth/v1/me`, the user's sessions). */
export const SignedIn = () => Access({ kind: 'session' });

/** Sign-up, log-in and the other `/auth/v1` steps taken before a session exists: same-origin only. */
export const SignInStep = () => Access({ kind: 'signIn' });

export function accessRuleOf(reflector: Reflector, context: ExecutionContext): AccessRule | undefined {
  return reflector.getAllAndOverride(Access, [context.getHandler(), context.getClass()]);
}

/** The authenticated caller of a tenant route (an API key, or a user with X-Tenant-Id). */
export const Principal = createParamDecorator((_: unknown, context: ExecutionContext): ApiPrincipal => {
  const principal = context.switchToHttp().getRequest<AppRequest>().principal;
  if (!principal) throw new Error('Principal requested on a route without API-key authentication');
  return principal;
});

/** The signed-in user's session, on routes whose rule requires one. */
export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext): SessionContext => {
  const session = context.switchToHttp().getRequest<AppRequest>().session;
  if (!session) throw new Error('Session requested on a route without session authentication');
  return session;
});

/** The widget visitor of a visitor route (its token checked before the handler). */
export const Visitor = createParamDecorator((_: unknown, context: ExecutionContext): VisitorPrincipal => {
  const visitor = context.switchToHttp().getRequest<AppRequest>().visitor;
  if (!visitor) throw new Error('Visitor requested on a route without a visitor token check');
  return visitor;
});
