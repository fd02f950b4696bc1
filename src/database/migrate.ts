import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { NO_SCHEMA_FILTER, openSchemaEngine } from './schema-engine';

export const PRISMA_DIR = path.resolve(__dirname, '..', '..', 'prisma');
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, 'migrations');
export const SCHEMA_PATH = path.join(PRISMA_DIR, 'schema.prisma');

async function readOptional(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch(() => null);
}

/** The migrations folder in the shape the schema engine takes (what `prisma migrate` reads). */
export async function loadMigrationsList(migrationsDir = MIGRATIONS_DIR) {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const directories = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
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
