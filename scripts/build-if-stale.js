#!/usr/bin/env node
// `npm start`'s pre-step: builds only when a build input is newer than the last build (or there
// is none), so a second start does not spend ~20 s on an unchanged build. The stamp is written by
// `npm run build` (postbuild); a failed build leaves the old stamp, so the next start builds again.
const { readdirSync, statSync, existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const STAMP = path.join(root, 'dist', '.build-stamp');
const INPUTS = ['src', 'web', 'prisma', 'package.json', 'package-lock.json', 'tsconfig.json', 'nest-cli.json'];

function newestChange(entry) {
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  // src/generated is the build's own output (prisma generate), not an input.
  if (entry === path.join(root, 'src', 'generated')) return 0;
  return readdirSync(entry).reduce((newest, name) => Math.max(newest, newestChange(path.join(entry, name))), stats.mtimeMs);
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const changed = Math.max(
  ...INPUTS.map((input) => path.join(root, input))
    .filter(existsSync)
    .map(newestChange),
);
if (built > changed) {
  console.log('Build is up to date (dist/); skipping npm run build.');
  process.exit(0);
}
const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(result.status ?? 1);
