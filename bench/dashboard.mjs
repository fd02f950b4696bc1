// The dashboard section of npm run bench (issue 24): the gzipped script of the first load (the
// module graph of /dashboard's index.html in the build: its entry and what that imports
// statically; lazy pages and charts come later) and the time to an interactive overview on the
// demo data in headless Chromium (Debian's chromium, playwright-core): signed in as the demo
// user, from navigation to the overview's figures and chart drawn; median of several runs with a
// cold cache (a new browser context each) and with a warm one (the same context again).
//   node bench/run.mjs --only=dashboard [--quick]   (no PostgreSQL needed: the embedded default serves it)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { imageNodeOptions, sleep } from './servers.mjs';

const PORT = 3471;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The demo tenant's owner (src/demo/demo-data.ts, printed in the start banner). */
const DEMO_LOGIN = { email: 'demo@example.com', password: 'demo-password' };

const gzipKb = (file) => gzipSync(readFileSync(file)).length / 1024;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The scripts /dashboard loads before any page of it is shown: index.html's module scripts and
 * modulepreloads, and every chunk they import statically (`import ... from "./x.js"`, `import
 * "./x.js"`), recursively; `import("./x.js")` (lazy) is left out. Sizes gzipped (zlib's default
 * level, as a proxy compressing on the fly would send them; the service itself sends them as is).
 */
export function firstLoadScripts(distDir) {
  const html = readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const toFile = (url) => path.join(distDir, url.replace(/^\/dashboard\//, ''));
  const queue = [...html.matchAll(/<(?:script[^>]*type="module"[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+)"/g)].map((m) => toFile(m[1]));
  const seen = new Set();
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/(?:^|[;}\s)])import\s*(?:[\w$*{}\s,]+?from\s*)?["']([^"']+\.js)["']/g)) queue.push(path.join(path.dirname(file), m[1]));
  }
  const files = [...seen].map((file) => ({ file: path.basename(file), gzipKb: +gzipKb(file).toFixed(1) }));
  return { files, gzipKb: +files.reduce((sum, x) => sum + x.gzipKb, 0).toFixed(1) };
}

/** `npm start` on a fresh data folder (development mode, PGlite, the demo data), resolved once the demo user can log in. */
async function startDemo(root, dataDir, log) {
  const env = { ...process.env };
  for (const name of ['NODE_ENV', 'DATABASE_URL', 'REDIS_URL', 'DEMO_DATA', 'PUBLIC_URL']) delete env[name];
  const nodeOptions = imageNodeOptions(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: root,
    env: { ...env, DATA_DIR: dataDir, PORT: String(PORT), NODE_OPTIONS: nodeOptions },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.on('exit', () => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${PORT}`;
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the demo service exited (${child.exitCode})`);
    try {
      const response = await fetch(`${base}/auth/v1/sessions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: base },
        body: JSON.stringify(DEMO_LOGIN),
      });
      if (response.ok) {
        log(`dashboard: the demo service answers log-ins after ${(i / 10).toFixed(1)} s`);
        return { base, stop: async () => (child.kill('SIGTERM'), await exited) };
      }
    } catch {}
    await sleep(100);
  }
  throw new Error('the demo service did not let the demo user log in within 120 s');
}

/** Navigates to /dashboard and waits for the overview's figures and its chart: milliseconds, and the dashboard scripts fetched over the network. */
async function timeOverview(page, base, distDir) {
  const scripts = new Set();
  const onResponse = (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/dashboard/assets/') && url.pathname.endsWith('.js') && !response.fromServiceWorker()) scripts.add(url.pathname);
  };
  page.on('response', onResponse);
  const started = performance.now();
  await page.goto(`${base}/dashboard`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.locator('#figures-title').waitFor();
  await page.locator('.chart .uplot canvas').waitFor();
  const ms = performance.now() - started;
  page.off('response', onResponse);
  const fromNetwork = [...scripts].map((p) => path.join(distDir, p.replace(/^\/dashboard\//, '')));
  return {
    ms,
    scriptGzipKb: +fromNetwork
      .filter(existsSync)
      .reduce((sum, file) => sum + gzipKb(file), 0)
      .toFixed(1),
    scripts: fromNetwork.length,
  };
}

export async function measureDashboard({ root, log, quick }) {
  const distDir = path.join(root, 'dist/web/dashboard');
  const firstLoad = firstLoadScripts(distDir);
  log(`dashboard: first load ${firstLoad.gzipKb} KB of script gzipped (${firstLoad.files.map((x) => x.file).join(', ')})`);
  const { chromium } = await import('playwright-core');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
  const server = await startDemo(root, dataDir, log);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const runs = quick ? 5 : 7;
  const cold = [];
  const warm = [];
  let overviewScripts;
  try {
    // Signed in once through the form, as the demo user would; each run starts from that state
    // (the session cookie, and the page's own note that someone is signed in) in a new context.
    const setup = await browser.newContext();
    const signIn = await setup.newPage();
    signIn.setDefaultTimeout(60_000);
    await signIn.goto(`${server.base}/dashboard`);
    await signIn.getByLabel('E-mail').fill(DEMO_LOGIN.email);
    await signIn.getByLabel('Password').fill(DEMO_LOGIN.password);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await signIn.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const storageState = await setup.storageState();
    await setup.close();
    for (let run = 0; run < runs; run++) {
      // A new context: an empty cache.
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, storageState });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const first = await timeOverview(page, server.base, distDir);
      overviewScripts ??= first;
      cold.push(first.ms);
      // Warm: the same context (its cache holds the hashed assets, cached for a year), a new page.
      const again = await context.newPage();
      warm.push((await timeOverview(again, server.base, distDir)).ms);
      await context.close();
    }
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const figures = {
    firstLoad,
    overviewScriptGzipKb: overviewScripts.scriptGzipKb,
    overviewScripts: overviewScripts.scripts,
    runs,
    coldMs: Math.round(median(cold)),
    warmMs: Math.round(median(warm)),
    cold: cold.map(Math.round),
    warm: warm.map(Math.round),
  };
  log(
    `dashboard: interactive overview, median of ${runs}: cold ${figures.coldMs} ms, warm ${figures.warmMs} ms (cold ${figures.cold.join(', ')}; warm ${figures.warm.join(', ')})`,
  );
  return figures;
}

export function dashboardMarkdown(figures) {
  if (!figures) return '';
  const { firstLoad } = figures;
  return [
    '## The dashboard: first load and an interactive overview',
    '',
    `First-load script of \`/dashboard\` (index.html's module graph in dist/web/dashboard, lazy chunks left out), gzipped: **${firstLoad.gzipKb} KB** (target: under 300 KB): ${firstLoad.files.map((x) => `${x.file} ${x.gzipKb} KB`).join(', ')}. Everything the browser fetched until the overview was drawn (the overview page's chunk and the chart's uPlot included): ${figures.overviewScriptGzipKb} KB gzipped in ${figures.overviewScripts} files.`,
    '',
    `Time to an interactive overview on the demo data (the embedded default, \`npm start\`'s demo tenant, signed in as the demo user) in headless Chromium: from navigation to \`/dashboard\` to the overview's figures and its chart drawn, median of ${figures.runs} runs:`,
    '',
    '| cache | median | runs (ms) |',
    '|---|---|---|',
    `| cold (a new browser context each run) | ${figures.coldMs} ms | ${figures.cold.join(', ')} |`,
    `| warm (the same context, a new page) | ${figures.warmMs} ms | ${figures.warm.join(', ')} |`,
    '',
  ].join('\n');
}
