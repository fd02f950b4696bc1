import { loadConfig } from '../config/env';
import { openMigrationConnection } from '../database/database-connection';
import { applyMigrations } from '../database/migrate';

/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
async function main(): Promise<void> {
  const config = loadConfig();
  const connection = await openMigrationConnection(config.database);
  try {
    const applied = await applyMigrations(connection.adapterFactory);
    console.log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'The database is up to date.');
  } finally {
    await connection.close();
  }
}

// Exits explicitly: the WASM schema engine leaves a 10-second timer behind once it is done.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`Migration failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
