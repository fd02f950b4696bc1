import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_EXTENSIONS, openEmbedded } from '../database/database-connection';
import { loadMigrationsList, MIGRATIONS_DIR, readSchema } from '../database/migrate';
import { NO_SCHEMA_FILTER, openSchemaEngine } from '../database/schema-engine';

/**
 * `npm run db:migration:create -- <name>`: writes the SQL that takes the migrations folder to
 * prisma/schema.prisma, as `prisma migrate dev --create-only` does. The engine replays the
 * existing migrations in a throwaway in-memory PGlite, so no database and no binary are needed.
 */
async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error('Give the migration a snake_case name: npm run db:migration:create -- add_things');
  const connection = openEmbedded(await PGlite.create({ extensions: EMBEDDED_EXTENSIONS }));
  // The engine replays the migrations in a shadow database. The PGlite adapter's own shadow lacks
  // pg_trgm and does not await scripts, so the init migration failed unnoticed there and the diff
  // started from an empty database; a second embedded database opened like the first replays them.
  const shadow = openEmbedded(await PGlite.create({ extensions: EMBEDDED_EXTENSIONS }));
  connection.adapterFactory.connectToShadowDb = () => shadow.adapterFactory.connect();
  const schema = await readSchema();
  const engine = await openSchemaEngine(connection.adapterFactory, schema);
  try {
    const { stdout } = await engine.diff({
      from: { tag: 'migrations', ...(await loadMigrationsList()) },
      to: { tag: 'schemaDatamodel', files: [schema] },
      script: true,
      exitCode: null,
      filters: NO_SCHEMA_FILTER,
    });
    if (!stdout || /^-- This is an empty migration/.test(stdout.trim())) {
      console.log('The schema matches the migrations: nothing to create.');
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'migration.sql'), stdout);
    console.log(`Created ${path.relative(process.cwd(), dir)}/migration.sql`);
  } finally {
    engine.free();
    await connection.close();
    await shadow.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
