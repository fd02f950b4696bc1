import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Scope } from './scopes';
import type { ApiPrincipal, AppRequest, VisitorPrincipal } from '../http/request-context';

/** Who may call a route. Every route declares one; a route without it is refused. */
export type AccessRule =
  | { kind: 'public' }
  | { kind: 'admin' }
  | { kind: 'apiKey'; scopes: readonly Scope[] }
  | { kind: 'widget' }
  | { kind: 'visitor' };

/** The kinds of caller; each has its own list of checks (CallerChecks). */
export type CallerKind = AccessRule['kind'];

export const Access = Reflector.createDecorator<AccessRule>();

/** Open to anyone: health probes and the API description. */
export const Public = () => Access({ kind: 'public' });

/** The dashboard's admin API: the bearer token from ADMIN_API_TOKEN. */
export const AdminOnly = () => Access({ kind: 'admin' });

/** The chat widget: a valid public key (svc_pk_) of a tenant with API access; secret keys are refused. */
export const WidgetOnly = () => Access({ kind: 'widget' });

/** A widget visitor: the widget's checks, then a valid X-Visitor-Token of the key's tenant (401 INVALID_VISITOR_TOKEN). */
export const VisitorOnly = () => Access({ kind: 'visitor' });

/** A valid API key of a tenant with API access, holding every scope listed (none: any valid key). */
export const RequireScopes = (...scopes: Scope[]) => Access({ kind: 'apiKey', scopes });

export function accessRuleOf(reflector: Reflector, context: ExecutionContext): AccessRule | undefined {
  return reflector.getAllAndOverride(Access, [context.getHandler(), context.getClass()]);
}

/** The authenticated caller of an API-key route. */
export const Principal = createParamDecorator((_: unknown, context: ExecutionContext): ApiPrincipal => {
  const principal = context.switchToHttp().getRequest<AppRequest>().principal;
  if (!principal) throw new Error('Principal requested on a route without API-key authentication');
  return principal;
});

/** The widget visitor of a visitor route (its token checked before the handler). */
export const Visitor = createParamDecorator((_: unknown, context: ExecutionContext): VisitorPrincipal => {
  const visitor = context.switchToHttp().getRequest<AppRequest>().visitor;
  if (!visitor) throw new Error('Visitor requested on a route without a visitor token check');
  return visitor;
});
