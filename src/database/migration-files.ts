import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const PRISMA_DIR = path.resolve(__dirname, '..', '..', 'prisma');
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, 'migrations');
export const SCHEMA_PATH = path.join(PRISMA_DIR, 'schema.prisma');

/** The migrations of the folder, in order (none when the folder is missing). */
export async function migrationDirectoryNames(migrationsDir = MIGRATIONS_DIR): Promise<string[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Each migration of the folder with the checksum the schema engine records in `_prisma_migrations`: SHA-256 of its migration.sql, in hex. */
export async function migrationChecksums(migrationsDir = MIGRATIONS_DIR): Promise<{ name: string; checksum: string }[]> {
  const names = await migrationDirectoryNames(migrationsDir);
  return Promise.all(
    names.map(async (name) => ({
      name,
      checksum: createHash('sha256')
        .update(await readFile(path.join(migrationsDir, name, 'migration.sql')))
        .digest('hex'),
    })),
  );
}
