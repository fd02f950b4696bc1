import type { Request } from 'express';
import type { ApiKeyType, Plan, Role } from '../../generated/prisma/enums';

export interface PrincipalTenant {
  id: string;
  name: string;
  slug: string;
  plan: Plan;
}

/** A request made with an API key: the key's tenant, and the key. */
export interface KeyPrincipal {
  kind: 'apiKey';
  tenant: PrincipalTenant;
  /** What the caller may do: the key's scopes. */
  scopes: readonly string[];
  apiKey: { id: string; type: ApiKeyType; scopes: readonly string[] };
  user?: undefined;
}

/** A request made by a signed-in user for one of their tenants (X-Tenant-Id). */
export interface UserPrincipal {
  kind: 'user';
  tenant: PrincipalTenant;
  /** What the caller may do: the scopes of the user's role in that tenant. */
  scopes: readonly string[];
  apiKey?: undefined;
  user: { id: string; role: Role };
}

/** What authentication established about a tenant-scoped caller, attached to the request. */
export type ApiPrincipal = KeyPrincipal | UserPrincipal;

/** A valid session (the svc_session cookie): its user, and the tenants the user belongs to. */
export interface SessionContext {
  sessionId: string;
  user: { id: string; email: string; name: string; createdAt: Date };
  memberships: ReadonlyMap<string, { role: Role; tenant: PrincipalTenant }>;
}

/** The widget visitor a valid X-Visitor-Token names (the visitor access kind attaches it). */
export interface VisitorPrincipal {
  tenantId: string;
  botId: string;
  visitorId: string;
}

export type AppRequest = Request & { id: string; principal?: ApiPrincipal; session?: SessionContext; visitor?: VisitorPrincipal };
