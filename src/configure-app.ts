import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { answerClientErrorsInEnvelope } from './common/http/client-error';
import { GlobalExceptionFilter } from './common/errors/global-exception.filter';
import { everyAnswerMiddleware } from './common/http/every-answer.middleware';
import { httpsOnlyMiddleware } from './common/http/https-only.middleware';
import type { AppRequest } from './common/http/request-context';
import { trustedProxies } from './config/trusted-proxies';
import { publishOpenApiDocument } from './openapi/openapi.document';
import type { AppConfig } from './config/env';
import { AppLogger } from './logging/app-logger';
import { REQUEST_LOG } from './logging/logging.module';
import { WIDGET_PATH_PREFIX, widgetCors } from './widget/widget-cors';

/** Everything the app needs beyond its modules; main.ts and the e2e tests both call it. */
export function configureApp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  app.useLogger(app.get(AppLogger));
  express.disable('x-powered-by');
  express.disable('etag');
  express.set('query parser', 'simple');
  if (config.trustProxy !== undefined) express.set('trust proxy', trustedProxies(config.trustProxy));
  const securityHeaders = headersSetBy(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: 'deny' },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    }),
  );
  answerClientErrorsInEnvelope(app.getHttpServer(), securityHeaders);
  // Before routing, so that every answer has them, unknown and undecodable paths included.
  express.use(everyAnswerMiddleware(securityHeaders));
  express.use(WIDGET_PATH_PREFIX, widgetCors);
  express.use(app.get<RequestHandler>(REQUEST_LOG));
  const errors = new GlobalExceptionFilter();
  express.use(httpsOnlyMiddleware(config, (error, request, response) => errors.reply(error, request as AppRequest, response)));
  publishOpenApiDocument(app);
}

/**
 * The headers a header-setting middleware (helmet) writes, computed once: they are the same for
 * every answer, and setting them from a list is cheaper than running helmet's 13 steps per request.
 */
function headersSetBy(middleware: (request: Request, response: Response, next: NextFunction) => void): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => (headers[name] = String(value)),
    removeHeader: (name: string) => delete headers[name],
    getHeader: (name: string) => headers[name],
  };
  middleware({ headers: {} } as Request, response as unknown as Response, () => undefined);
  return headers;
}
