import { loadConfig } from '../config/env';
import { openMigrationConnection } from '../database/database-connection';
import { applyMigrations, type MigrationOutcome } from '../database/migrate';

/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
async function main(): Promise<string[]> {
  const config = loadConfig();
  const connection = await openMigrationConnection(config.database);
  try {
    return await applyMigrations(connection.adapterFactory);
  } finally {
    await connection.close();
  }
}

/**
 * Forked by the server on the embedded database (applyMigrationsInChildProcess), the outcome goes to
 * the parent, which logs it; run by hand, to the terminal. Exits explicitly either way: the WASM
 * schema engine leaves a 10-second timer behind once it is done.
 */
function finish(outcome: MigrationOutcome, text: string, exitCode: number): void {
  if (process.send) {
    process.send(outcome, () => process.exit(exitCode));
    return;
  }
  (exitCode ? console.error : console.log)(text);
  process.exit(exitCode);
}

main().then(
  (applied) => finish({ applied }, applied.length ? `Applied migrations: ${applied.join(', ')}` : 'The database is up to date.', 0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    finish({ error: message }, `Migration failed: ${message}`, 1);
  },
);
