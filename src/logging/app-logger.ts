import type { LoggerService } from '@nestjs/common';
import type { BaseLogger } from 'pino';

/**
 * Nest's own start-up chatter: a line per module and per route (about 60 at every start), which
 * buried the first start's demo key. Their warnings and errors still pass.
 */
const BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * The app's logger: Nest's logging calls written as pino lines, `{ context, msg }` (or `err` for
 * an error), on the request logger's output. It holds no per-request state: a request's id is on
 * its own line (request-log.middleware.ts) and in the messages that concern it.
 */
export class AppLogger implements LoggerService {
  constructor(private readonly pino: BaseLogger) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && BOOT_CONTEXTS.has(context)) return;
    this.write('info', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.write('error', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.write('warn', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.write('debug', message, optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.write('trace', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.write('fatal', message, optionalParams);
  }

  /** Nest passes the context last; an error's stack, when given, comes before it. */
  private write(level: Level, message: unknown, optionalParams: unknown[]): void {
    const fields: Record<string, unknown> = {};
    const params = optionalParams.slice(0, -1);
    if (optionalParams.length) fields.context = optionalParams.at(-1);
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message });
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...message });
    } else if (level === 'error' && params.length === 1 && typeof params[0] === 'string' && /\n\s*at /.test(params[0])) {
      // Nest's exception handlers pass (message, stack, context): logged as one error with its stack.
      const err = new Error(String(message));
      err.stack = params[0];
      this.pino[level]({ ...fields, err });
    } else {
      this.pino[level](fields, String(message), ...params);
    }
  }
}
