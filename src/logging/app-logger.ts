import { Injectable } from '@nestjs/common';
import { Logger } from 'nestjs-pino';

/**
 * Nest's own start-up chatter: a line per module and per route (about 60 at every start), which
 * buried the first start's demo key. Their warnings and errors still pass.
 */
const BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** The app's logger (pino through nestjs-pino), without Nest's informational start-up lines. */
@Injectable()
export class AppLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && BOOT_CONTEXTS.has(context)) return;
    super.log(message, ...optionalParams);
  }
}
