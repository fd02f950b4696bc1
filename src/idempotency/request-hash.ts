import { createHash } from 'node:crypto';

/** What makes two requests "the same" for an idempotency key. */
export interface IdempotentRequest {
  method: string;
  path: string;
  /** The validated, normalised body (the DTO after trimming), not the bytes received. */
  body: object;
}

/** SHA-256 (hex) of the request's canonical JSON: method, path and body, object keys sorted. */
export function hashRequest(request: IdempotentRequest): string {
  const canonical = canonicalJson({ method: request.method.toUpperCase(), path: request.path, body: request.body });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * JSON with the keys of every object in sorted order and undefined members left out, so that
 * equal values give equal text whatever order the client sent the fields in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const entries = Object.entries(value).filter(([, member]) => member !== undefined);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, member]) => [name, sortKeys(member)]));
}
