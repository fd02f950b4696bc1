import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { answerClientErrorsInEnvelope } from './common/http/client-error';
import { requestIdOf } from './common/http/request-id';
import { trustedProxies } from './config/trusted-proxies';
import { publishOpenApiDocument } from './openapi/openapi.document';
import type { AppConfig } from './config/env';
import { AppLogger } from './logging/app-logger';
import { WIDGET_PATH_PREFIX, widgetCors } from './widget/widget-cors';

/** Everything the app needs beyond its modules; main.ts and the e2e tests both call it. */
export function configureApp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  app.useLogger(app.get(AppLogger));
  express.disable('x-powered-by');
  express.disable('etag');
  express.set('query parser', 'simple');
  if (config.trustProxy !== undefined) express.set('trust proxy', trustedProxies(config.trustProxy));
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    frameguard: { action: 'deny' },
    strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  });
  express.use(securityHeaders);
  answerClientErrorsInEnvelope(app.getHttpServer(), headersSetBy(securityHeaders));
  // Before routing, so that every answer has an id, unknown and undecodable paths included.
  express.use((request: Request, response: Response, next: NextFunction) => {
    requestIdOf(request, response);
    response.setHeader('Cache-Control', 'no-store');
    // Answers are never cached (no-store) and carry no validators: conditional requests do not
    // apply, so a stray `If-None-Match: *` cannot turn an answer into a bodiless 304.
    delete request.headers['if-none-match'];
    delete request.headers['if-modified-since'];
    next();
  });
  express.use(WIDGET_PATH_PREFIX, widgetCors);
  publishOpenApiDocument(app);
}

/** The headers a header-setting middleware (helmet) writes, for answers written outside Express. */
function headersSetBy(middleware: (request: Request, response: Response, next: NextFunction) => void): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = { setHeader: (name: string, value: unknown) => (headers[name] = String(value)), removeHeader: (name: string) => delete headers[name], getHeader: (name: string) => headers[name] };
  middleware({ headers: {} } as Request, response as unknown as Response, () => undefined);
  return headers;
}
