import type { Request, Response } from 'express';
import { SESSION_COOKIE } from '../../common/access/access.decorators';

/** The absolute lifetime of a session (API_DECISIONS part 3): the cookie lives as long. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3_600_000;
export const SESSION_IDLE_MS = 12 * 3_600_000;

/** The session token from the Cookie header, or undefined. */
export function sessionTokenOf(request: Request): string | undefined {
  return cookieOf(request, SESSION_COOKIE);
}

/** A cookie's value from the Cookie header (the service reads two cookies: no parser needed), or undefined. */
export function cookieOf(request: Request, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs; the Origin check is
 * the CSRF defence that does not depend on the browser), Secure in production or over TLS.
 */
export function setSessionCookie(request: Request, response: Response, token: string, production: boolean): void {
  response.append('Set-Cookie', `${SESSION_COOKIE}=${token}; ${cookieAttributes(request, production)}; Max-Age=${SESSION_ABSOLUTE_MS / 1000}`);
}

export function clearSessionCookie(request: Request, response: Response, production: boolean): void {
  response.append('Set-Cookie', `${SESSION_COOKIE}=; ${cookieAttributes(request, production)}; Max-Age=0`);
}

/** The attributes of the service's cookies (the session's and the device's). */
export function cookieAttributes(request: Request, production: boolean): string {
  return `Path=/; HttpOnly; SameSite=Lax${production || request.secure ? '; Secure' : ''}`;
}
