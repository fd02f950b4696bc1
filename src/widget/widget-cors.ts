import type { NextFunction, Request, Response } from 'express';

export const WIDGET_PATH_PREFIX = '/api/v1/widget';

const ALLOWED_HEADERS = 'X-API-Key, X-Visitor-Token, Content-Type, Accept, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After';

/**
 * CORS for the widget's paths, and only those: the rest of the API is for servers and answers no
 * cross-origin browser. A preflight carries no key, so it cannot be checked against a tenant's
 * allowedOrigins; it is answered for any origin and grants nothing by itself. The request that
 * follows is checked (WidgetOriginGuard), and a refused one goes out without CORS headers.
 */
export function widgetCors(request: Request, response: Response, next: NextFunction): void {
  const origin = request.headers.origin;
  if (!origin) return next();
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Vary', 'Origin');
  if (request.method === 'OPTIONS') {
    response.setHeader('Access-Control-Allow-Methods', 'GET, POST');
    response.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    response.setHeader('Access-Control-Max-Age', '600');
    response.status(204).end();
    return;
  }
  response.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  next();
}

/** Takes the CORS headers back from an answer to an origin the tenant did not allow. */
export function withdrawCors(response: Response): void {
  response.removeHeader('Access-Control-Allow-Origin');
  response.removeHeader('Access-Control-Expose-Headers');
}
