import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_EXTENSIONS, openEmbedded } from '../../src/database/database-connection';
import { readEmbeddedTemplate } from '../../src/database/embedded-template';
import { applyMigrations, migrationDirectoryNames } from '../../src/database/migrate';
import { ChildServer, freePort, requireBuild } from '../support/child-server';

/** The schema as catalog rows, in a stable order: what a difference between two databases would show in. */
const SCHEMA_QUERIES = {
  extensions: `SELECT extname, extversion FROM pg_extension ORDER BY 1`,
  columns: `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, character_maximum_length, ordinal_position
            FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2`,
  constraints: `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
                WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
  indexes: `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
  triggers: `SELECT tgrelid::regclass::text AS tbl, tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2`,
  functions: `SELECT proname, pg_get_functiondef(p.oid) AS def FROM pg_proc p
              WHERE pronamespace = 'public'::regnamespace AND prokind IN ('f', 'p') ORDER BY 1, 2`,
  types: `SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text AS labels FROM pg_type t
          LEFT JOIN pg_enum e ON e.enumtypid = t.oid WHERE t.typnamespace = 'public'::regnamespace AND t.typtype IN ('e', 'd', 'c')
          GROUP BY 1 ORDER BY 1`,
  sequences: `SELECT sequencename, data_type, start_value, increment_by, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`,
  views: `SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1`,
};

async function schemaOf(pglite: PGlite): Promise<Record<string, unknown[]>> {
  const schema: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(SCHEMA_QUERIES)) schema[name] = (await pglite.query(sql)).rows;
  // Rows the migrations themselves insert (backfills, reference data), counted per table.
  const tables = await pglite.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_prisma_migrations' ORDER BY 1`,
  );
  schema.rowCounts = await Promise.all(
    tables.rows.map(async ({ table_name }) => [table_name, (await pglite.query(`SELECT count(*)::int AS n FROM "${table_name}"`)).rows[0]]),
  );
  return schema;
}

interface MigrationRow {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
}

const migrationRows = async (pglite: PGlite) => (await pglite.query<MigrationRow>('SELECT * FROM _prisma_migrations ORDER BY migration_name')).rows;

/**
 * The embedded default's first start unpacks the folder migrated at build time (dist/embedded-template)
 * instead of running the schema engine: the database it leaves must be the one the schema engine makes.
 */
describe('The first start of the embedded default, from the migrated folder of the build', () => {
  let root: string;
  const opened: PGlite[] = [];

  beforeAll(async () => {
    requireBuild();
    root = await mkdtemp(path.join(tmpdir(), 'embedded-template-'));
  });
  afterAll(async () => {
    await Promise.all(opened.map((pglite) => pglite.close()));
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('is built for exactly the migrations of prisma/migrations (so a first start takes it)', async () => {
    const template = await readEmbeddedTemplate();
    expect(template?.migrations).toEqual(await migrationDirectoryNames());
  });

  it('leaves the schema and the _prisma_migrations rows the schema engine leaves, and the schema engine finds nothing to apply', async () => {
    const startedDir = path.join(root, 'started');
    const startedAt = new Date();
    const server = new ChildServer({ PORT: String(await freePort()), DATA_DIR: startedDir, DEMO_DATA: 'false', SHUTDOWN_DRAIN_MS: '0' });
    await server.waitFor('/health/ready');
    server.process.kill('SIGTERM');
    expect((await server.waitForExit(15_000)).code).toBe(0);
    expect(server.stdout).toMatch(/Embedded database in .+; applied 20261121000000_init, /);

    const started = await PGlite.create({ dataDir: startedDir, extensions: EMBEDDED_EXTENSIONS });
    opened.push(started);
    const migrated = await PGlite.create({ dataDir: path.join(root, 'migrated'), extensions: EMBEDDED_EXTENSIONS });
    opened.push(migrated);
    await applyMigrations(openEmbedded(migrated).adapterFactory);

    expect(await schemaOf(started)).toEqual(await schemaOf(migrated));

    const [startedRows, migratedRows] = [await migrationRows(started), await migrationRows(migrated)];
    // Ids are random and times are when each was applied: everything else is the same.
    const comparable = ({ id: _id, started_at: _s, finished_at: _f, ...rest }: MigrationRow) => rest;
    expect(startedRows.map(comparable)).toEqual(migratedRows.map(comparable));
    expect(startedRows.map((row) => row.migration_name)).toEqual(await migrationDirectoryNames());
    for (const row of startedRows) {
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(migratedRows.map((other) => other.id)).not.toContain(row.id);
      // Applied on this start, not when the build made the folder.
      expect(row.started_at.getTime()).toBeGreaterThanOrEqual(startedAt.getTime() - 1_000);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    }
    expect(new Set(startedRows.map((row) => row.id)).size).toBe(startedRows.length);

    // A later `npm run db:migrate` (the schema engine) agrees that everything is applied.
    await expect(applyMigrations(openEmbedded(started).adapterFactory)).resolves.toEqual([]);
  });
});
