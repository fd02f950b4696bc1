import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { loadConfig } from '../config/env';
import { configureApp } from '../configure-app';
import { EMBEDDED_EXTENSIONS, openEmbedded } from '../database/database-connection';
import { OpenApiDocumentStore } from '../openapi/openapi-document.store';

/**
 * `npm run openapi:export`: writes the OpenAPI document the app serves to a file (openapi.json at
 * the repository root by default). Boots the app on a throwaway in-memory embedded database, with
 * a fixed configuration and without listening: the document depends on the code only.
 */
async function main(): Promise<void> {
  const target = path.resolve(process.argv[2] ?? 'openapi.json');
  const config = loadConfig({ LOG_LEVEL: 'silent', DEMO_DATA: 'false' });
  const connection = openEmbedded(await PGlite.create({ extensions: EMBEDDED_EXTENSIONS }));
  const app = await NestFactory.create(AppModule.forRoot(config, connection), { bodyParser: false, logger: false, abortOnError: false });
  try {
    configureApp(app, config);
    writeFileSync(target, `${JSON.stringify(app.get(OpenApiDocumentStore).get(), null, 2)}\n`);
    console.log(`Wrote ${path.relative(process.cwd(), target) || target}`);
  } finally {
    await app.close();
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`OpenAPI export failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
