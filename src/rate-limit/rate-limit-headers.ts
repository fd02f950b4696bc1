import type { Response } from 'express';
import { waitSeconds } from '../common/http/retry-after';
import { isOver, WindowUsage } from './rate-limit.store';

/**
 * The headers of API_DECISIONS (Rate limits): GitHub-style X-RateLimit-* for the hourly window,
 * the IETF RateLimit-Policy/RateLimit fields, and Retry-After for the window that blocked.
 */
export function writeRateLimitHeaders(response: Response, hourly: WindowUsage, windows: readonly WindowUsage[]): WindowUsage | undefined {
  const remaining = Math.max(0, hourly.limit - hourly.count);
  response.setHeader('X-RateLimit-Limit', String(hourly.limit));
  response.setHeader('X-RateLimit-Remaining', String(remaining));
  response.setHeader('X-RateLimit-Reset', String(Math.ceil(hourly.resetAt / 1000)));
  response.setHeader('RateLimit-Policy', windows.map((w) => `"${w.name}";q=${w.limit};w=${waitSeconds(w.ttlMs)}`).join(', '));
  response.setHeader('RateLimit', `"${hourly.name}";r=${remaining};t=${waitSeconds(hourly.resetAt - hourly.now)}`);
  const blocking = windows.find(isOver);
  if (blocking) response.setHeader('Retry-After', String(waitSeconds(blocking.resetAt - blocking.now)));
  return blocking;
}
