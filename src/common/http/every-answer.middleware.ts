import type { NextFunction, Request, Response } from 'express';
import { requestIdOf } from './request-id';

/**
 * What every answer carries, set in one step before routing (four Express middlewares before,
 * ~5% of a verify's CPU): the security headers (computed once from helmet), the request id, and
 * `Cache-Control: no-store`. Answers carry no validators, so conditional requests do not apply:
 * a stray `If-None-Match: *` cannot turn an answer into a bodiless 304.
 */
export function everyAnswerMiddleware(securityHeaders: Readonly<Record<string, string>>) {
  const headers = Object.entries(securityHeaders);
  return (request: Request, response: Response, next: NextFunction): void => {
    for (const [name, value] of headers) response.setHeader(name, value);
    requestIdOf(request, response);
    response.setHeader('Cache-Control', 'no-store');
    delete request.headers['if-none-match'];
    delete request.headers['if-modified-since'];
    next();
  };
}
