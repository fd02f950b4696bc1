import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '../../common/access/access.decorators';

/** The absolute lifetime of a session (API_DECISIONS part 3): the cookie lives as long. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3_600_000;
export const SESSION_IDLE_MS = 12 * 3_600_000;

/** The session token from the Cookie header (one cookie: no parser needed), or undefined. */
export function sessionTokenOf(request: Request): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === SESSION_COOKIE) return part.slice(separator + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs; the Origin check is
 * the CSRF defence that does not depend on the browser), Secure in production or over TLS.
 */
export function setSessionCookie(request: Request, response: Response, token: string, production: boolean): void {
  response.append('Set-Cookie', `${SESSION_COOKIE}=${token}; ${attributes(request, production)}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}`);
}

export function clearSessionCookie(request: Request, response: Response, production: boolean): void {
  response.append('Set-Cookie', `${SESSION_COOKIE}=; ${attributes(request, production)}; Max-Age=0`);
}

function attributes(request: Request, production: boolean): string {
  return `Path=/; HttpOnly; SameSite=Lax${production || request.secure ? '; Secure' : ''}`;
}
