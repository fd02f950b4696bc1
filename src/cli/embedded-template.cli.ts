import { PGlite } from '@electric-sql/pglite';
import { EMBEDDED_EXTENSIONS, openEmbedded } from '../database/database-connection';
import { TEMPLATE_DIR, writeEmbeddedTemplate } from '../database/embedded-template';
import { applyMigrations } from '../database/migrate';

/**
 * A step of `npm run build`: migrates an in-memory PGlite with the schema engine and writes its folder
 * to dist/embedded-template, for the embedded default's first start (src/database/embedded-template.ts).
 */
async function main(): Promise<void> {
  const pglite = await PGlite.create({ extensions: EMBEDDED_EXTENSIONS });
  try {
    await applyMigrations(openEmbedded(pglite).adapterFactory);
    const manifest = await writeEmbeddedTemplate(pglite);
    console.log(`Embedded database template: ${manifest.migrations.length} migrations, in ${TEMPLATE_DIR}`);
  } finally {
    await pglite.close();
  }
}

// Exits explicitly: the WASM schema engine leaves a 10-second timer behind once it is done.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`Embedded database template failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
