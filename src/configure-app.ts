import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { publishOpenApiDocument } from './common/openapi/openapi.document';
import type { AppConfig } from './config/env';

/** Everything the app needs beyond its modules; main.ts and the e2e tests both call it. */
export function configureApp(app: INestApplication, config: AppConfig): void {
  const express = app as NestExpressApplication;
  app.useLogger(app.get(Logger));
  express.disable('x-powered-by');
  express.disable('etag');
  express.set('query parser', 'simple');
  if (config.trustProxy !== undefined) express.set('trust proxy', config.trustProxy);
  express.use(
    helmet({
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      frameguard: { action: 'deny' },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
    }),
  );
  express.use((_request: unknown, response: { setHeader(name: string, value: string): void }, next: () => void) => {
    response.setHeader('Cache-Control', 'no-store');
    next();
  });
  publishOpenApiDocument(app);
}
