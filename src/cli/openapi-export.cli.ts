import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { withOfflineApp } from '../offline-app';
import { OpenApiDocumentStore } from '../openapi/openapi-document.store';

/**
 * `npm run openapi:export`: writes the OpenAPI document the app serves to a file (openapi.json at
 * the repository root by default), read from the app booted offline: the document depends on the
 * code only.
 */
async function main(): Promise<void> {
  const target = path.resolve(process.argv[2] ?? 'openapi.json');
  const document = await withOfflineApp((app) => app.get(OpenApiDocumentStore).get());
  writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`Wrote ${path.relative(process.cwd(), target) || target}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`OpenAPI export failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
