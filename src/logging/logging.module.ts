import type { IncomingMessage, ServerResponse } from 'node:http';
import { DynamicModule, Global, Module } from '@nestjs/common';
import type { LevelWithSilent } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AppConfig } from '../config/env';
import { AppLogger } from './app-logger';
import { createLogOutput, LOG_OUTPUT } from './log-output';
import { requestIdOf } from '../common/http/request-id';
import type { AppRequest } from '../common/http/request-context';

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

function outcomeOf(request: IncomingMessage) {
  const { id, principal, route } = request as AppRequest;
  return { requestId: id, tenantId: principal?.tenant.id, keyId: principal?.apiKey.id, route: route?.path };
}

/** The request logger (pino-http), a middleware that configureApp installs before routing. */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/**
 * Structured JSON logs (pino): one line per request with its id, tenant, key id (never the
 * key), route, status and duration. Pretty-printed on a developer's terminal.
 *
 * No request context (AsyncLocalStorage) carries a per-request logger: in Node 20 it hooks every
 * promise the app makes, which cost 6-7% of a request's CPU (issue 17's profile), for the few
 * lines logged while serving a request; those name the request id themselves.
 */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(config: AppConfig): DynamicModule {
    const output = createLogOutput(!config.production && process.stdout.isTTY);
    const httpLogger = pinoHttp(
      {
        level: config.logLevel,
        genReqId: (request: IncomingMessage, response: ServerResponse) => requestIdOf(request, response),
        // Only these request fields are logged: no headers, so no key or token can reach a log.
        serializers: {
          req: (request: { id: string; method: string; url: string }) => ({ id: request.id, method: request.method, path: loggablePath(request.url) }),
          res: (response: { statusCode: number }) => ({ status: response.statusCode }),
        },
        // The request id, who and which route go on the request's final line (who and which
        // route are known only once the guards have run).
        customSuccessObject: (request: IncomingMessage, _response: ServerResponse, line: object) => ({ ...line, ...outcomeOf(request) }),
        customErrorObject: (request: IncomingMessage, _response: ServerResponse, _error: Error, line: object) => ({ ...line, ...outcomeOf(request) }),
        customLogLevel: (_request, response, error): LevelWithSilent => (error || response.statusCode >= 500 ? 'error' : response.statusCode >= 400 ? 'warn' : 'info'),
        autoLogging: { ignore: (request) => request.url?.startsWith('/health/') ?? false },
      },
      output.stream,
    );
    return {
      module: LoggingModule,
      providers: [
        { provide: AppLogger, useValue: new AppLogger(httpLogger.logger) },
        { provide: HTTP_LOGGER, useValue: httpLogger },
        { provide: LOG_OUTPUT, useValue: output },
      ],
      exports: [AppLogger, HTTP_LOGGER, LOG_OUTPUT],
    };
  }
}
