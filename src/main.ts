import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { ConfigError, configWarnings, loadConfig } from './config/env';
import { transportNotice } from './common/http/https-only.middleware';
import { configureApp } from './configure-app';
import { openDatabaseConnection } from './database/database-connection';
import { openMigratedEmbeddedDatabase } from './database/migrate';
import { SchemaStatus } from './database/schema-status';
import { demoBanner } from './demo/demo-banner';
import { DemoDataSeeder } from './demo/demo-data';
import { installGracefulShutdown } from './lifecycle/graceful-shutdown';
import { AppLogger } from './logging/app-logger';
import { LOG_OUTPUT, type LogOutput } from './logging/log-output';

/** Above a load balancer's usual 60 s idle timeout, so it never reuses a socket we closed. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const REQUEST_TIMEOUT_MS = 30_000;

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  const { connection, applied } =
    config.database.kind === 'embedded'
      ? await openMigratedEmbeddedDatabase(config.database)
      : { connection: await openDatabaseConnection(config.database), applied: [] };

  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, connection), {
    bodyParser: false,
    bufferLogs: true,
    httpsOptions: config.tls ? { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } : undefined,
  });
  configureApp(app, config);
  const logger = app.get(AppLogger);
  for (const warning of configWarnings(config)) logger.warn(warning, 'Config');
  if (config.database.kind === 'embedded') {
    logger.log(`Embedded database in ${config.database.dataDir}${applied.length ? `; applied ${applied.join(', ')}` : ''}`, 'Bootstrap');
  }

  if (config.database.kind === 'postgres') {
    // `npm run db:migrate` is a separate step with PostgreSQL: say at once when it was missed.
    const problem = await app
      .get(SchemaStatus)
      .problem()
      .catch(() => undefined);
    if (problem) logger.warn(`Database ${problem}; until then requests are answered 503 and /health/ready is 503`, 'Bootstrap');
  }

  const demo = connection.kind === 'embedded' && config.demoData ? await app.get(DemoDataSeeder).seedIfEmpty() : undefined;

  const server = await app.listen(config.port);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  // A request (headers and body) must arrive within 30 s: slow clients cannot hold sockets for long.
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  installGracefulShutdown(app, server, config.shutdown, logger);

  const scheme = config.tls ? 'https' : 'http';
  logger.log(`Listening on ${scheme}://localhost:${config.port}`, 'Bootstrap');
  const transport = transportNotice(config);
  if (transport.level === 'warn') logger.warn(transport.message, 'Bootstrap');
  else logger.log(transport.message, 'Bootstrap');
  if (demo && config.database.kind === 'embedded') {
    // Last, below every log line written so far, so that it stands out. Printed to the terminal
    // through the log output (to keep the order), never as a log line: the key is stored nowhere in clear.
    app
      .get<LogOutput>(LOG_OUTPUT)
      .writeText(demoBanner(demo, `${scheme}://localhost:${config.port}`, config.database.dataDir, config.adminApiToken !== undefined));
  }
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
