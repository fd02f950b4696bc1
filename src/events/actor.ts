import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AppRequest } from '../common/http/request-context';

/** Who made a change, as the audit log records it, and the request that carried it. */
export interface Actor {
  /** `admin-api`, `api-key:<key id>`, or `system` for changes made outside a request (the demo data). */
  name: string;
  requestId: string | null;
}

export const SYSTEM_ACTOR: Actor = { name: 'system', requestId: null };

/** The actor of an admin-API or API-key request: the key's id when a key authenticated it. */
export function actorOf(request: AppRequest): Actor {
  const name = request.principal ? `api-key:${request.principal.apiKey.id}` : 'admin-api';
  return { name, requestId: request.id };
}

/** Hands the request's actor to a controller, for the services that record events. */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): Actor => actorOf(context.switchToHttp().getRequest<AppRequest>()));
