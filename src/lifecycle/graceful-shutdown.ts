import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { ShutdownState } from './shutdown-state';

export interface ShutdownTimings {
  /** How long readiness reports false before the listener closes, for the load balancer to notice. */
  drainDelayMs: number;
  /** How long in-flight requests may take to finish before their connections are cut. */
  graceMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * On SIGTERM or SIGINT: report not-ready, keep serving for the drain delay, stop accepting
 * connections, let in-flight requests finish within the grace period (idle keep-alive sockets
 * are closed at once, busy ones after their response), then close the app (database pool,
 * Redis) and exit. A second signal exits at once.
 */
export function installGracefulShutdown(app: INestApplication, server: Server, timings: ShutdownTimings, logger: LoggerService): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.log(`${signal} received: draining (ready=false), closing in ${timings.drainDelayMs} ms`, 'Shutdown');
    app.get(ShutdownState).draining = true;
    await sleep(timings.drainDelayMs);

    // Answers from now on close their connection, and connections are closed as soon as they go
    // idle, so keep-alive clients (a load balancer's pool) move on instead of holding the process.
    server.prependListener('request', (_request, response) => {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    });
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Streams never finish by themselves: they end now (the widget reconnects to another instance).
    app.get(ShutdownState).closing();
    server.closeIdleConnections();
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    const finished = await Promise.race([closed.then(() => true), sleep(timings.graceMs).then(() => false)]);
    clearInterval(sweeper);
    if (!finished) {
      logger.warn(`Grace period of ${timings.graceMs} ms over: closing the remaining connections`, 'Shutdown');
      server.closeAllConnections();
    }
    await app.close();
    logger.log('Shut down cleanly', 'Shutdown');
    // The WASM database engine leaves timers behind; nothing is left to wait for.
    process.exit(0);
  };
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}
