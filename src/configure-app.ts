import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { requestIdOf } from './common/http/request-id';
import { trustedProxies } from './config/trusted-proxies';
import { publishOpenApiDocument } from './openapi/openapi.document';
import type { AppConfig } from './config/env';

/** Everything the app needs beyond its modules; main.ts and the e2e tests both call it. */
export function configureApp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  app.useLogger(app.get(Logger));
  express.disable('x-powered-by');
  express.disable('etag');
  express.set('query parser', 'simple');
  if (config.trustProxy !== undefined) express.set('trust proxy', trustedProxies(config.trustProxy));
  express.use(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: 'deny' },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    }),
  );
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
  publishOpenApiDocument(app);
}
