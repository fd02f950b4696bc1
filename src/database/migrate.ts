import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { AppConfig } from '../config/env';
import { type DatabaseConnection, openDatabaseConnection } from './database-connection';
import { NO_SCHEMA_FILTER, openSchemaEngine } from './schema-engine';

import { readEmbeddedTemplate, STAMP_TEMPLATE_MIGRATIONS, unpackEmbeddedTemplate } from './embedded-template';
import { MIGRATIONS_DIR, migrationDirectoryNames, SCHEMA_PATH } from './migration-files';

export { MIGRATIONS_DIR, migrationDirectoryNames } from './migration-files';
const MIGRATE_CLI = path.resolve(__dirname, '..', 'cli', 'migrate.cli.js');

/** What the migration process forked by applyMigrationsInChildProcess reports to its parent. */
export type MigrationOutcome = { applied: string[] } | { error: string };

async function readOptional(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch(() => null);
}

/** The migrations folder in the shape the schema engine takes (what `prisma migrate` reads). */
export async function loadMigrationsList(migrationsDir = MIGRATIONS_DIR) {
  const directories = await migrationDirectoryNames(migrationsDir);
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: await readOptional(path.join(migrationsDir, 'migration_lock.toml')) },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      directories.map(async (name) => {
        const content = await readOptional(path.join(migrationsDir, name, 'migration.sql'));
        return {
          path: name,
          migrationFile: {
            path: 'migration.sql',
            content: content === null ? { tag: 'error' as const, value: 'migration.sql is missing' } : { tag: 'ok' as const, value: content },
          },
        };
      }),
    ),
  };
}

export async function readSchema() {
  return { path: 'schema.prisma', content: await readFile(SCHEMA_PATH, 'utf8') };
}

/**
 * Applies the pending migrations of prisma/migrations, exactly as `prisma migrate deploy` does
 * (same engine, same `_prisma_migrations` bookkeeping), through the given driver adapter.
 */
export async function applyMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await openSchemaEngine(adapterFactory, await readSchema());
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({
      migrationsList: await loadMigrationsList(),
      filters: NO_SCHEMA_FILTER,
    });
    return appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * Applies the pending migrations of the embedded database in a child process (dist/cli/migrate.cli.js)
 * and returns their names once it has exited. The schema engine's WebAssembly memory and code, and
 * on a fresh folder PGlite's initdb, would otherwise stay in the server's resident memory for good
 * (WebAssembly memory only grows, and freed malloc arenas are not given back). The child closes the
 * database before it exits, as a PGlite folder can be open in one process at a time.
 */
export function applyMigrationsInChildProcess(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = fork(MIGRATE_CLI, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let outcome: MigrationOutcome | undefined;
    child.once('message', (message: MigrationOutcome) => (outcome = message));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (outcome && 'applied' in outcome && code === 0) return resolve(outcome.applied);
      reject(new Error(outcome && 'error' in outcome ? `Migration failed: ${outcome.error}` : `The migration process exited with ${code ?? signal}`));
    });
  });
}

/**
 * Whether the schema engine has work to do on this database: a migration of the folder not applied
 * yet, or a failed one that it must report. Read from `_prisma_migrations` (none there: all to do).
 */
export async function hasPendingMigrations(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<boolean> {
  const adapter = await adapterFactory.connect();
  try {
    const { rows } = await adapter.queryRaw({
      sql: 'SELECT migration_name, finished_at IS NOT NULL AND rolled_back_at IS NULL, finished_at IS NULL AND rolled_back_at IS NULL FROM _prisma_migrations',
      args: [],
      argTypes: [],
    });
    if (rows.some(([, , failed]) => failed)) return true;
    const applied = new Set(rows.filter(([, done]) => done).map(([name]) => name));
    return (await migrationDirectoryNames(MIGRATIONS_DIR)).some((name) => !applied.has(name));
  } catch {
    return true;
  } finally {
    await adapter.dispose();
  }
}

/**
 * Opens the embedded database with every migration applied. A fresh folder is unpacked from the
 * folder migrated at build time (embedded-template.ts) when that holds exactly these migrations;
 * otherwise a fresh folder, or one with migrations to apply, is first migrated by a child process.
 * A start with nothing to apply (most of them) costs one query instead (the migration process takes
 * about 1.5 s).
 */
export async function openMigratedEmbeddedDatabase(
  config: Extract<AppConfig['database'], { kind: 'embedded' }>,
): Promise<{ connection: DatabaseConnection; applied: string[] }> {
  if (existsSync(path.join(config.dataDir, 'PG_VERSION'))) {
    const connection = await openDatabaseConnection(config);
    if (!(await hasPendingMigrations(connection.adapterFactory))) return { connection, applied: [] };
    await connection.close();
  } else {
    const template = await readEmbeddedTemplate();
    if (template) {
      await unpackEmbeddedTemplate(template.archive, config.dataDir);
      const connection = await openDatabaseConnection(config);
      const adapter = await connection.adapterFactory.connect();
      await adapter.executeScript(STAMP_TEMPLATE_MIGRATIONS).finally(() => adapter.dispose());
      return { connection, applied: template.migrations };
    }
  }
  const applied = await applyMigrationsInChildProcess();
  return { connection: await openDatabaseConnection(config), applied };
}
