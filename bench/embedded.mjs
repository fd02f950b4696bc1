// The embedded default as `npm start` runs it on a fresh machine: `node dist/main.js` in development
// mode with no DATABASE_URL or REDIS_URL, on PGlite in a fresh DATA_DIR. Measures the resident
// memory after the first start (which migrates and seeds the demo data) and after a restart on
// the same folder, the peak during the first start and under load, and the demo data's endpoints
// at 50 connections with the demo key the banner prints. Once with the image's NODE_OPTIONS
// (Dockerfile), once with Node's defaults. Builds nothing: run `npm run build` first.
//   node bench/run.mjs --only=embedded [--quick]
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { assertAllAnswered, cpuSeconds, imageNodeOptions, loadOptions, sleep } from './servers.mjs';

const CONNECTIONS = 50;
const PORT = 3470;
const STARTUP_TIMEOUT_MS = 120_000;

const running = new Set();
// However the run ends, no server is left behind holding the port.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** VmRSS and VmHWM (the peak so far) of `pid`, in MB. */
function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** The resident memory of `pid` and all its descendants (a migration child, say), in MB. */
function treeRssMb(pid) {
  const parentOf = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const inTree = (candidate) => {
    for (let p = candidate; p > 1; p = parentOf.get(p)) if (p === pid) return true;
    return false;
  };
  let kb = 0;
  for (const candidate of parentOf.keys()) {
    if (!inTree(candidate)) continue;
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${candidate}/status`, 'utf8'))?.[1] ?? 0);
    } catch {}
  }
  return Math.round(kb / 1024);
}

/** The environment of `npm start` on a fresh machine: development mode, embedded database, in-process limits. */
export function embeddedEnv(dataDir, nodeOptions) {
  const env = { ...process.env };
  for (const name of ['NODE_ENV', 'DATABASE_URL', 'REDIS_URL', 'NODE_OPTIONS', 'DEMO_DATA', 'LOG_LEVEL']) delete env[name];
  // The demo tenant is on Pro (50 requests a second): the limiter runs but never refuses.
  return { ...env, DATA_DIR: dataDir, PORT: String(PORT), NODE_OPTIONS: nodeOptions, RATE_LIMIT_MULTIPLIER: '100000' };
}

/**
 * Starts the service and resolves once its banner is printed (the last thing a start writes),
 * with the demo key of a first start, the time it took, its RSS and VmHWM, and the peak resident
 * memory of its process tree, sampled every 50 ms (a child's peak is not in the parent's VmHWM).
 */
export async function startEmbedded(root, env, logFile) {
  const started = Date.now();
  // Logs go to a file, as a container runtime takes them: a pipe read by this process, which also
  // runs the load generator, would hold the server's writes up whenever this process is busy.
  const logs = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: root, env, stdio: ['ignore', logs, 'pipe'] });
  closeSync(logs);
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  running.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  exited.then(() => running.delete(child));
  let treePeak = 0;
  while (!/Demo tenant (created|in )[\s\S]*─{78}\n/.test(stdout)) {
    const exit = await Promise.race([exited, sleep(50).then(() => undefined)]);
    stdout = readFileSync(logFile, 'utf8');
    if (exit !== undefined) throw new Error(`the service exited (${exit}) before its banner\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    if (Date.now() - started > STARTUP_TIMEOUT_MS) throw new Error(`no banner within ${STARTUP_TIMEOUT_MS} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`);
    treePeak = Math.max(treePeak, treeRssMb(child.pid));
  }
  const memory = memoryMb(child.pid);
  return {
    child,
    exited,
    key: /svc_sk_[0-9A-Za-z]+/.exec(stdout)?.[0],
    startMs: Date.now() - started,
    rss: memory.rss,
    peak: memory.peak,
    treePeak: Math.max(memory.peak, treePeak),
    stop: async () => {
      child.kill('SIGTERM');
      const exit = await exited;
      if (exit !== 0) throw new Error(`the service exited with ${exit} on SIGTERM\nstderr:\n${stderr}`);
    },
  };
}

async function getJson(baseUrl, pathname, key) {
  const response = await fetch(baseUrl + pathname, { headers: { 'X-API-Key': key } });
  if (!response.ok) throw new Error(`GET ${pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The demo data's endpoints, as an integration calls them with the demo key. */
async function demoScenarios(baseUrl, key) {
  const { conversations } = await getJson(baseUrl, '/api/v1/conversations', key);
  const conversation = conversations.reduce((most, x) => (x.messageCount > most.messageCount ? x : most));
  return [
    { name: 'verify', path: '/api/v1/verify', key },
    { name: 'list bots', path: '/api/v1/bots', key },
    { name: 'leads, first page', path: '/api/v1/leads', key },
    { name: 'messages of a demo conversation', path: `/api/v1/conversations/${conversation.id}/messages`, key },
    {
      name: 'create lead',
      path: '/api/v1/leads',
      method: 'POST',
      key,
      body: { name: 'Bench Lead', email: 'bench@example.com', company: 'Acme Corp', tags: ['bench'] },
    },
  ];
}

/**
 * One autocannon run on 50 connections: a warm-up, which lasts until every connection has had an
 * answer, then `duration` seconds measured (steady: every connection open), with the CPU time the
 * server spent per request meanwhile. The opening takes long on a saturated server: Node accepts
 * one new connection per event-loop iteration, and each iteration serves every open connection,
 * so the last of 50 waits for tens of iterations. `openedMs` is when every connection had been
 * answered, `p99Opening` the p99 of the whole run, their first requests included.
 */
async function measure(baseUrl, scenario, pid, { duration, warmup }) {
  // Plain HTTP from loopback is accepted in development: no X-Forwarded-Proto.
  const { 'X-Forwarded-Proto': _, ...headers } = loadOptions(baseUrl, scenario, CONNECTIONS).headers;
  const options = { ...loadOptions(baseUrl, scenario, CONNECTIONS), headers, duration: 120 };
  const started = Date.now();
  const answered = new Set();
  const latencies = [];
  let openedMs;
  let measuringSince;
  let cpuBefore;
  const instance = autocannon(options);
  instance.on('response', (client, _status, _bytes, ms) => {
    if (measuringSince !== undefined) return void latencies.push(ms);
    answered.add(client);
    if (answered.size === CONNECTIONS) openedMs ??= Date.now() - started;
    if (openedMs === undefined || Date.now() - started < warmup * 1000) return;
    measuringSince = Date.now();
    cpuBefore = cpuSeconds(pid);
    setTimeout(() => instance.stop(), duration * 1000);
  });
  const result = await instance;
  const cpu = cpuSeconds(pid) - cpuBefore;
  assertAllAnswered(`${options.method} ${options.url}`, result);
  latencies.sort((a, b) => a - b);
  const at = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]);
  return {
    scenario: scenario.name,
    rps: Math.round(latencies.length / ((Date.now() - measuringSince) / 1000)),
    p50: at(50),
    p99: at(99),
    max: at(100),
    openedMs,
    p99Opening: result.latency.p99,
    cpuUs: Math.round((cpu * 1e6) / latencies.length),
  };
}

/** One round: first start on a fresh folder, the load, a restart on the same folder. */
async function measureVariant({ root, log, nodeOptions, timing }) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-'));
  const env = embeddedEnv(dataDir, nodeOptions);
  const label = nodeOptions || 'Node defaults';
  try {
    const logFile = `${dataDir}.log`;
    const first = await startEmbedded(root, env, logFile);
    if (!first.key) throw new Error('the first start printed no demo key');
    log(`embedded (${label}): first start in ${first.startMs} ms, RSS ${first.rss} MB, peak ${first.peak} MB (with children ${first.treePeak} MB)`);
    const baseUrl = `http://127.0.0.1:${PORT}`;
    const load = [];
    for (const scenario of await demoScenarios(baseUrl, first.key)) {
      const figures = await measure(baseUrl, scenario, first.child.pid, timing);
      load.push(figures);
      log(
        `embedded (${label}): ${figures.scenario}: ${figures.rps} req/s p50 ${figures.p50} p99 ${figures.p99} max ${figures.max} ms (all ${CONNECTIONS} connections answered after ${figures.openedMs} ms; p99 with their opening ${figures.p99Opening} ms), CPU ${figures.cpuUs} µs/req`,
      );
    }
    const afterLoad = memoryMb(first.child.pid);
    log(`embedded (${label}): after the load RSS ${afterLoad.rss} MB, peak ${afterLoad.peak} MB`);
    await first.stop();
    const second = await startEmbedded(root, env, logFile);
    await second.stop();
    log(`embedded (${label}): restart in ${second.startMs} ms, RSS ${second.rss} MB, peak ${second.peak} MB (with children ${second.treePeak} MB)`);
    return {
      nodeOptions,
      firstStart: { ms: first.startMs, rssMb: first.rss, peakMb: first.peak, treePeakMb: first.treePeak },
      load,
      afterLoad: { rssMb: afterLoad.rss, peakMb: afterLoad.peak },
      restart: { ms: second.startMs, rssMb: second.rss, peakMb: second.peak, treePeakMb: second.treePeak },
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.log`, { force: true });
  }
}

/**
 * The embedded section: with the image's NODE_OPTIONS, then with Node's defaults (what a plain
 * `node dist/main.js` gets). About 2.5 minutes, 1 with `quick`.
 */
export async function embeddedSection({ root, log, quick }) {
  const timing = quick ? { warmup: 1, duration: 3 } : { warmup: 2, duration: 8 };
  const imageOptions = imageNodeOptions(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  const variants = [];
  for (const nodeOptions of [imageOptions, '']) variants.push(await measureVariant({ root, log, nodeOptions, timing }));
  return { connections: CONNECTIONS, durationSeconds: timing.duration, variants };
}

/** The section's markdown: one memory table, one load table per variant. */
export function embeddedMarkdown(figures) {
  const label = (variant) => (variant.nodeOptions ? `NODE_OPTIONS ${variant.nodeOptions}` : 'Node defaults');
  return [
    `## The embedded default (PGlite, no DATABASE_URL, development mode, demo data)`,
    ``,
    `\`node dist/main.js\` on a fresh DATA_DIR: the first start migrates and seeds the demo data; the restart reuses the folder. RSS once the banner is printed; peak: the server process's VmHWM (after the load: its peak since it started), and, with children, the sampled resident memory of the server and its children (the migration process) during the start.`,
    ``,
    `| node options | first start s | RSS after first start MB | peak during first start MB | with children MB | peak under load MB | RSS after load MB | restart s | RSS after restart MB | peak during restart, with children MB |`,
    `|---|---|---|---|---|---|---|---|---|---|`,
    ...figures.variants.map(
      (v) =>
        `| ${label(v)} | ${(v.firstStart.ms / 1000).toFixed(1)} | ${v.firstStart.rssMb} | ${v.firstStart.peakMb} | ${v.firstStart.treePeakMb} | ${v.afterLoad.peakMb} | ${v.afterLoad.rssMb} | ${(v.restart.ms / 1000).toFixed(1)} | ${v.restart.rssMb} | ${v.restart.treePeakMb} |`,
    ),
    ``,
    ...figures.variants.flatMap((v) => [
      `### The demo data at ${figures.connections} connections, ${figures.durationSeconds} s each once every connection is open (${label(v)})`,
      ``,
      `| scenario | req/s | p50 ms | p99 ms | max ms | CPU µs/req | all connections answered after ms | p99 with their opening ms |`,
      `|---|---|---|---|---|---|---|---|`,
      ...v.load.map((x) => `| ${x.scenario} | ${x.rps} | ${x.p50} | ${x.p99} | ${x.max} | ${x.cpuUs} | ${x.openedMs} | ${x.p99Opening} |`),
      ``,
    ]),
  ].join('\n');
}

/** --only=embedded: this section alone, written to bench/results-embedded.md and .json (no DATABASE_URL needed). */
export async function onlyEmbedded({ root, log, quick, started, commit }) {
  const figures = await embeddedSection({ root, log, quick });
  const report = {
    commit,
    cores: os.cpus().length,
    cpu: os.cpus()[0].model,
    node: process.version,
    quick,
    date: new Date().toISOString(),
    embedded: figures,
    minutes: +((Date.now() - started) / 60000).toFixed(1),
  };
  writeFileSync(path.join(root, 'bench/results-embedded.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(
    path.join(root, 'bench/results-embedded.md'),
    [
      `# Benchmark results: embedded only`,
      ``,
      `Commit ${commit}, ${report.date}; ${report.cores} cores (${report.cpu}), Node ${report.node}. Made with \`node bench/run.mjs --only=embedded${quick ? ' --quick' : ''}\`.`,
      ``,
      embeddedMarkdown(figures),
    ].join('\n'),
  );
  log(`done in ${report.minutes} min: bench/results-embedded.md`);
}
