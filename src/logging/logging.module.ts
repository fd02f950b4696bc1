import { DynamicModule, Global, Module } from '@nestjs/common';
import pino from 'pino';
import type { AppConfig } from '../config/env';
import { AppLogger } from './app-logger';
import { createLogOutput, LOG_OUTPUT } from './log-output';
import { requestLogMiddleware } from './request-log.middleware';

/** The request log, a middleware that configureApp installs before routing. */
export const REQUEST_LOG = Symbol('REQUEST_LOG');

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
    const logger = pino({ level: config.logLevel }, output.stream);
    return {
      module: LoggingModule,
      providers: [
        { provide: AppLogger, useValue: new AppLogger(logger) },
        { provide: REQUEST_LOG, useValue: requestLogMiddleware(logger) },
        { provide: LOG_OUTPUT, useValue: output },
      ],
      exports: [AppLogger, REQUEST_LOG, LOG_OUTPUT],
    };
  }
}
