#!/usr/bin/env node
// Runs `prisma generate` offline. The Prisma CLI insists on resolving a schema-engine binary
// (which it would download) even though generating the client never runs it; pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies that check. Migrations do not use
// the CLI at all: see src/database/migrate.ts.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const cli = require.resolve('prisma/build/index.js');
const result = spawnSync(process.execPath, [cli, 'generate'], {
  cwd: path.resolve(__dirname, '..'),
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
process.exit(result.status ?? 1);
