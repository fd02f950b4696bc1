import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { AppRequest } from '../common/http/request-context';
import { clientIp } from '../rate-limit/client-ip';

/** Who made a change, as the audit log records it, and the request that carried it. */
export interface Actor {
  /** `user:<user id>`, `api-key:<key id>`, `admin-api`, or `system` for changes made outside a request. */
  name: string;
  requestId: string | null;
  /** The client address of that request; null outside a request. */
  ip: string | null;
}

export const SYSTEM_ACTOR: Actor = { name: 'system', requestId: null, ip: null };

/** The actor name of a user (also what `GET /api/v1/audit-log?actor=` takes). */
export const userActorName = (userId: string) => `user:${userId}`;

/** The user id of a user's actor name; undefined for the other actors. */
export const userIdOfActor = (name: string): string | undefined => (name.startsWith('user:') ? name.slice('user:'.length) : undefined);

/** The actor of a request: the signed-in user, the key that authenticated it, or the admin API. */
export function actorOf(request: AppRequest): Actor {
  const { principal, session } = request;
  const userId = principal?.user?.id ?? session?.user.id;
  const name = userId ? userActorName(userId) : principal?.apiKey ? `api-key:${principal.apiKey.id}` : 'admin-api';
  return { name, requestId: request.id, ip: clientIp(request) };
}

/** Hands the request's actor to a controller, for the services that record events. */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): Actor => actorOf(context.switchToHttp().getRequest<AppRequest>()));
