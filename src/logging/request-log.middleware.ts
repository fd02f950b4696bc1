import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { AppRequest } from '../common/http/request-context';
import { requestIdOf } from '../common/http/request-id';

/**
 * The request target's path, without its query and, for an absolute-form target
 * (`http://user:password@host/path`), without scheme, userinfo and host: no credential reaches a log.
 */
export function loggablePath(target: string): string {
  const path = target.split('?')[0];
  if (path.startsWith('/')) return path;
  const url = URL.canParse(target) ? new URL(target) : undefined;
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.pathname : '(unparseable request target)';
}

/**
 * One line per answered request, in pino-http's shape: `req` (id, method, path: no query, no
 * headers, so no key or token reaches a log), `res.status`, `responseTime` in ms, and the request
 * id, tenant, key id and route, known once the guards have run. Written when the answer is sent,
 * or when the connection closes before it ("request aborted"). Health probes are not logged.
 *
 * pino-http itself made a child logger per request, with the request serialised into it at the
 * start for lines nobody logged: 5-6% of a verify's CPU (npm run bench:profile).
 */
export function requestLogMiddleware(logger: Logger) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const url = request.originalUrl ?? request.url;
    if (url.startsWith('/health/')) return next();
    const startedAt = Date.now();
    requestIdOf(request, response);
    const finish = () => {
      response.off('finish', finish);
      response.off('close', finish);
      writeLine(logger, request, response, Date.now() - startedAt);
    };
    response.on('finish', finish);
    response.on('close', finish);
    next();
  };
}

function writeLine(logger: Logger, request: IncomingMessage & { originalUrl?: string }, response: ServerResponse, responseTime: number): void {
  const { id, principal, route, session } = request as AppRequest;
  const line = {
    req: { id, method: request.method, path: loggablePath(request.originalUrl ?? request.url ?? '') },
    res: { status: response.statusCode },
    responseTime,
    requestId: id,
    tenantId: principal?.tenant.id,
    keyId: principal?.apiKey?.id,
    userId: session?.user.id,
    route: route?.path,
  };
  if (response.statusCode >= 500) {
    logger.error({ ...line, err: new Error(`failed with status code ${response.statusCode}`) }, 'request errored');
    return;
  }
  const sent = !request.readableAborted && response.writableEnded;
  logger[response.statusCode >= 400 ? 'warn' : 'info'](line, sent ? 'request completed' : 'request aborted');
}
