import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { withOfflineApp } from '../offline-app';
import { renderRouteTable, ROUTE_TABLE_PATH, servedRoutes } from '../route-table';

/**
 * `npm run routes:export`: writes docs/routes.md, the table of every route the app serves with its
 * access rule and its handler, read from the app booted offline (src/route-table.ts).
 */
async function main(): Promise<void> {
  const target = path.resolve(process.argv[2] ?? ROUTE_TABLE_PATH);
  writeFileSync(target, renderRouteTable(await withOfflineApp(servedRoutes)));
  console.log(`Wrote ${path.relative(process.cwd(), target) || target}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`Route table export failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
