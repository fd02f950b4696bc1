import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { migrationChecksums } from './migration-files';

/**
 * The embedded database's pre-initialised data folder: a PGlite folder migrated by the schema engine
 * at `npm run build` (dist/embedded-template, src/cli/embedded-template.cli.ts), which a first start
 * unpacks into its fresh DATA_DIR instead of running initdb and the schema engine in a child process
 * (whose WebAssembly memory made that start peak at ~760 MB across both processes). The folder is
 * kept as PGlite's dump (a gzipped tar: 5 MB where the folder is 40) and unpacked here, not by
 * PGlite's `loadDataDir`, which holds the whole archive in the JavaScript heap and left the server
 * ~35 MB bigger for good (RSS after a first start 281 MB against 247). The manifest
 * says which migrations, byte for byte, the folder holds, and for which PGlite: when the migrations
 * or PGlite changed since the build, a fresh folder is migrated the usual way instead.
 */
// dist/embedded-template from dist/database (the server) and from src/database (the tests) alike.
export const TEMPLATE_DIR = path.resolve(__dirname, '..', '..', 'dist', 'embedded-template');
const TEMPLATE_ARCHIVE = path.join(TEMPLATE_DIR, 'pgdata.tar.gz');
const TEMPLATE_MANIFEST = path.join(TEMPLATE_DIR, 'manifest.json');

interface TemplateManifest {
  pglite: string;
  /** Name and checksum of every migration applied, in order, as the schema engine recorded them. */
  migrations: { name: string; checksum: string }[];
}

/**
 * Run on the unpacked folder: gives its `_prisma_migrations` rows what the schema engine would write
 * on this start (a fresh id each, this start as the time they were applied, not the build's).
 */
export const STAMP_TEMPLATE_MIGRATIONS = 'UPDATE _prisma_migrations SET id = gen_random_uuid()::text, started_at = now(), finished_at = now()';

/** The installed PGlite's version (its package.json is not among its exports). */
async function pgliteVersion(): Promise<string> {
  const packageJson = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  return (JSON.parse(await readFile(packageJson, 'utf8')) as { version: string }).version;
}

/** Writes the folder of `pglite`, just migrated by the schema engine, and its manifest. */
export async function writeEmbeddedTemplate(pglite: PGlite): Promise<TemplateManifest> {
  const { rows } = await pglite.query<{ migration_name: string; checksum: string }>(
    'SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
  );
  const manifest: TemplateManifest = { pglite: await pgliteVersion(), migrations: rows.map((row) => ({ name: row.migration_name, checksum: row.checksum })) };
  // A start compares the files' checksums with these: were they computed otherwise, no start would use the folder.
  if (JSON.stringify(manifest.migrations) !== JSON.stringify(await migrationChecksums()))
    throw new Error('The migrated database does not hold exactly the migrations of prisma/migrations with their SHA-256 checksums');
  const archive = Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
  await mkdir(TEMPLATE_DIR, { recursive: true });
  await writeFile(TEMPLATE_ARCHIVE, archive);
  await writeFile(TEMPLATE_MANIFEST, JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/**
 * The built folder, if it holds exactly the migrations of prisma/migrations (same names, same
 * checksums) and was made by the installed PGlite; otherwise (not built, migrations changed since
 * the build, another PGlite) undefined.
 */
export async function readEmbeddedTemplate(): Promise<{ archive: string; migrations: string[] } | undefined> {
  const manifest = await readFile(TEMPLATE_MANIFEST, 'utf8')
    .then((text) => JSON.parse(text) as TemplateManifest)
    .catch(() => undefined);
  if (!manifest || manifest.pglite !== (await pgliteVersion())) return undefined;
  if (JSON.stringify(manifest.migrations) !== JSON.stringify(await migrationChecksums())) return undefined;
  return { archive: TEMPLATE_ARCHIVE, migrations: manifest.migrations.map((migration) => migration.name) };
}

const BLOCK = 512;

/** A NUL-terminated text field of a tar header. */
function field(header: Buffer, start: number, length: number): string {
  const end = header.indexOf(0, start);
  return header.toString('utf8', start, end === -1 || end > start + length ? start + length : end);
}

/**
 * Unpacks a gzipped tar written by PGlite's dumpDataDir (ustar: files and folders only) into `dataDir`.
 * PG_VERSION, which marks a folder as initialised, is written last: an interrupted unpack leaves a
 * folder the next start still treats as fresh. postmaster.pid, PGlite's lock of the build, is left out.
 */
export async function unpackEmbeddedTemplate(archive: string, dataDir: string): Promise<void> {
  // Inflated at once (40 MB, outside the JavaScript heap: freed to the system when done).
  const tar = await promisify(gunzip)(await readFile(archive));
  let pgVersion: Buffer | undefined;
  for (let offset = 0; offset + BLOCK <= tar.length;) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const prefix = field(header, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(header, 0, 100);
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 0x30);
    const relative = path.normalize(name.replace(/^\/+/, ''));
    if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`The embedded database template names a path outside its folder: ${name}`);
    const target = path.join(dataDir, relative);
    const content = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    if (type === '5') await mkdir(target, { recursive: true, mode: 0o700 });
    else if (type !== '0') throw new Error(`The embedded database template holds an entry of tar type ${type}: ${name}`);
    else if (relative === 'PG_VERSION') pgVersion = content;
    else if (relative !== 'postmaster.pid') {
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, content, { mode: 0o600 });
    }
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (!pgVersion) throw new Error('The embedded database template has no PG_VERSION');
  await writeFile(path.join(dataDir, 'PG_VERSION'), pgVersion, { mode: 0o600 });
}
