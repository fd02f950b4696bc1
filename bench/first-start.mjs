// The embedded default's first start alone, repeated: `node dist/main.js` on a fresh DATA_DIR with
// the image's NODE_OPTIONS, as bench/embedded.mjs starts it, and the peak resident memory of the
// server and its children (sampled every 50 ms) until the banner. Builds nothing: run `npm run build` first.
//   node bench/first-start.mjs [--runs=3]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedEnv, startEmbedded } from './embedded.mjs';
import { imageNodeOptions } from './servers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv.find((arg) => arg.startsWith('--runs='))?.slice('--runs='.length) ?? 3);
const nodeOptions = imageNodeOptions(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
const results = [];
for (let run = 1; run <= runs; run++) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-first-start-'));
  try {
    const start = await startEmbedded(root, embeddedEnv(dataDir, nodeOptions), `${dataDir}.log`);
    await start.stop();
    results.push(start);
    console.log(`first start ${run}/${runs}: ${start.startMs} ms, RSS ${start.rss} MB, server peak ${start.peak} MB, with children ${start.treePeak} MB`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.log`, { force: true });
  }
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `median of ${runs}: ${median(results.map((r) => r.startMs))} ms, RSS ${median(results.map((r) => r.rss))} MB, server peak ${median(results.map((r) => r.peak))} MB, with children ${median(results.map((r) => r.treePeak))} MB`,
);
