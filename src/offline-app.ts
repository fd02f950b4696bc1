import { PGlite } from '@electric-sql/pglite';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { loadConfig } from './config/env';
import { configureApp } from './configure-app';
import { EMBEDDED_EXTENSIONS, openEmbedded } from './database/database-connection';

/**
 * Boots the app to read what it serves, then closes it: on a throwaway in-memory embedded
 * database, with a fixed configuration and without listening, so that what is read depends on the
 * code only. The exports of the API description and of the route table (src/cli/) use it.
 */
export async function withOfflineApp<T>(read: (app: INestApplication) => T | Promise<T>): Promise<T> {
  const config = loadConfig({ LOG_LEVEL: 'silent', DEMO_DATA: 'false' });
  const connection = openEmbedded(await PGlite.create({ extensions: EMBEDDED_EXTENSIONS }));
  const app = await NestFactory.create(AppModule.forRoot(config, connection), { bodyParser: false, logger: false, abortOnError: false });
  try {
    configureApp(app, config);
    return await read(app);
  } finally {
    await app.close();
    await connection.close();
  }
}
