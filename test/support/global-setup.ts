import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { EMBEDDED_EXTENSIONS, openDatabaseConnection, openEmbedded } from '../../src/database/database-connection';
import { applyMigrations } from '../../src/database/migrate';
import { E2E_DATABASE_URL, E2E_PGLITE_SNAPSHOT } from './test-database';

/**
 * Prepares one migrated database for the run, through the same migrations the service applies:
 * a fresh PostgreSQL database (dropped by the teardown) when DATABASE_URL is set, otherwise a
 * PGlite snapshot that every test file loads into its own in-memory copy.
 */
export default async function globalSetup(): Promise<void> {
  // The schema engine and PGlite (both WASM) leave 10-second timers behind after they are closed;
  // in Jest's main process those would hold the run open, so this setup's timers are unref'd.
  const setTimer = global.setTimeout;
  global.setTimeout = ((...args: Parameters<typeof setTimeout>) => setTimer(...args).unref()) as typeof setTimeout;
  try {
    await prepareDatabase();
  } finally {
    global.setTimeout = setTimer;
  }
}

async function prepareDatabase(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const name = `e2e_${Date.now()}_${randomBytes(3).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const connection = await openDatabaseConnection({ kind: 'postgres', url: url.toString(), statementTimeoutMs: 60_000, poolSize: 2 });
    await applyMigrations(connection.adapterFactory);
    await connection.close();
    process.env[E2E_DATABASE_URL] = url.toString();
    return;
  }
  const pglite = await PGlite.create({ extensions: EMBEDDED_EXTENSIONS });
  await applyMigrations(openEmbedded(pglite).adapterFactory);
  const snapshot = path.join(tmpdir(), `e2e-pglite-${process.pid}-${randomBytes(3).toString('hex')}.tar.gz`);
  await writeFile(snapshot, Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer()));
  await pglite.close();
  process.env[E2E_PGLITE_SNAPSHOT] = snapshot;
}
