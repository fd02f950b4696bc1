import type { Request } from 'express';

/** The client address the per-IP limits count under: Express's `req.ip`, proxy-aware per TRUST_PROXY. */
export function clientIp(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}
