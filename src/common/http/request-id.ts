import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id: a well-formed incoming X-Request-Id, or a new UUID. Idempotent, so the
 * logger and the middleware can both ask first; the id is echoed on the response.
 */
export function requestIdOf(request: IncomingMessage & { id?: unknown }, response: ServerResponse): string {
  if (typeof request.id === 'string') return request.id;
  const incoming = request.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  request.id = id;
  response.setHeader('X-Request-Id', id);
  return id;
}
