import { defineConfig } from 'prisma/config';

// Only `prisma generate` uses this file. Migrations run through the schema engine's WASM
// build (src/database/migrate.ts), so no engine binary is ever downloaded.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
