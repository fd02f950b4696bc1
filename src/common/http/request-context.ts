import type { Request } from 'express';
import type { ApiKeyType, Plan } from '../../generated/prisma/enums';

/** What authentication established about the caller, attached to the request. */
export interface ApiPrincipal {
  tenant: { id: string; name: string; slug: string; plan: Plan };
  apiKey: { id: string; type: ApiKeyType; scopes: readonly string[] };
}

/** The widget visitor a valid X-Visitor-Token names (the visitor access kind attaches it). */
export interface VisitorPrincipal {
  tenantId: string;
  botId: string;
  visitorId: string;
}

export type AppRequest = Request & { id: string; principal?: ApiPrincipal; visitor?: VisitorPrincipal };
