import { rm } from 'node:fs/promises';
import { Client } from 'pg';
import { E2E_DATABASE_URL, E2E_PGLITE_SNAPSHOT } from './test-database';

export default async function globalTeardown(): Promise<void> {
  const url = process.env[E2E_DATABASE_URL];
  if (url && process.env.DATABASE_URL) {
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  }
  const snapshot = process.env[E2E_PGLITE_SNAPSHOT];
  if (snapshot) await rm(snapshot, { force: true });
}
