import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { DatabaseConnection, EMBEDDED_EXTENSIONS, openDatabaseConnection, openEmbedded } from '../../src/database/database-connection';

/** Set by the global setup: a migrated PostgreSQL database for this run, or a migrated PGlite snapshot. */
export const E2E_DATABASE_URL = 'E2E_DATABASE_URL';
export const E2E_PGLITE_SNAPSHOT = 'E2E_PGLITE_SNAPSHOT';

/**
 * Opens the run's test database. On PostgreSQL all test files share the run's database and
 * isolate themselves by tenant; on PGlite each file gets a fresh copy of the migrated snapshot.
 */
export async function openTestDatabase(): Promise<DatabaseConnection> {
  const url = process.env[E2E_DATABASE_URL];
  if (url) return openDatabaseConnection({ kind: 'postgres', url, statementTimeoutMs: 10_000, poolSize: 5 });
  const snapshot = process.env[E2E_PGLITE_SNAPSHOT];
  if (!snapshot) throw new Error('The e2e global setup did not prepare a database');
  const pglite = await PGlite.create({ loadDataDir: new Blob([await readFile(snapshot)]), extensions: EMBEDDED_EXTENSIONS });
  return openEmbedded(pglite);
}
