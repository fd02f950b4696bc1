// npm run bench: seeds PostgreSQL ($DATABASE_URL, a database of its own), then measures the
// built service against the bare baseline (bench/baseline-server.mjs) on the same machine, in
// turns, with autocannon at fixed connections and durations. Writes bench/results.md and .json.
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench [-- --quick]
// `--only=webhooks` (bench/webhooks.mjs) or `--only=leads` (bench/leads-bulk.mjs) runs that section
// alone on a smaller seed and writes bench/results-<section>.md and .json, leaving results.md as it is;
// `--only=peer` (bench/peer-section.mjs) the service, baseline and peer rounds and the steady-rate
// latency on 1,000,000 leads. Every measurement also reads the server's CPU time per request.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createBenchDatabase, createBenchKey, growLeads, refreshCounters, refreshLeadCounters, seedBase, withDatabase } from './seed.mjs';
import {
  assertAllAnswered,
  baselineEnv,
  cpuSeconds,
  imageNodeOptions,
  loadOptions,
  peakRssMb,
  peerEnv,
  serviceEnv,
  startServer,
  stopServer,
  waitForHttp,
} from './servers.mjs';
import { measureSteady, steadyMarkdown } from './open-loop.mjs';
import { checkPeerAnswers, COMPARISON_HEADER, comparisonCells, measureRow, onlyPeer, PEER_PORT, peerDescription, peerScenarios } from './peer-section.mjs';
import { leadsBulkMarkdown, measureLeadsBulk } from './leads-bulk.mjs';
import { measureWebhooks, webhooksMarkdown } from './webhooks.mjs';
import { embeddedMarkdown, embeddedSection, onlyEmbedded } from './embedded.mjs';
import { openConversation, seedWidget, widgetScenario } from './widget.mjs';
import { seedIdentitySecret, sessionScenarios, verificationCpuUs } from './widget-identity.mjs';
import { ACCOUNTS_ORIGIN, accountsMarkdown, measureAccounts } from './accounts.mjs';
import { measurePrivacy, privacyMarkdown } from './privacy.mjs';
import { handoffMarkdown, measureHandoff } from './handoff.mjs';
import { dashboardMarkdown, measureDashboard } from './dashboard.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const SECTIONS = ['webhooks', 'leads', 'widget', 'peer', 'embedded', 'accounts', 'privacy', 'handoff', 'dashboard'];
if (only !== undefined && !SECTIONS.includes(only)) throw new Error(`--only=${only}: only --only=${SECTIONS.join('|')} are known`);
const CONNECTIONS = 50;
const DURATION = quick ? 4 : 10;
const WARMUP = quick ? 1 : 3;
// The service runs as the image runs it (Dockerfile, ENV NODE_OPTIONS).
const SERVICE_NODE_OPTIONS = imageNodeOptions(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl && only !== 'embedded' && only !== 'dashboard')
  throw new Error('Set DATABASE_URL to a PostgreSQL server (a database "chatbots_bench" is created there)');

const log = (...args) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

// The server process listening on each port, whose CPU time measure() reads.
const pidOfPort = new Map();
function launch(name, script, env, port) {
  const proc = startServer(name, process.execPath, [script], { cwd: root, env, log });
  pidOfPort.set(port, proc.pid);
  return proc;
}

/**
 * autocannon after a warm-up; cpuUs: the CPU time (user + system) the server process spent during
 * the measurement per answered request, steadier than req/s on 2 shared cores (null for a server
 * not started through launch).
 */
async function measure(baseUrl, scenario, connections = scenario.connections ?? CONNECTIONS) {
  const options = loadOptions(baseUrl, scenario, connections);
  await autocannon({ ...options, duration: WARMUP });
  const pid = pidOfPort.get(Number(new URL(baseUrl).port));
  const cpuBefore = pid && cpuSeconds(pid);
  const result = await autocannon({ ...options, duration: DURATION });
  const cpu = pid && cpuSeconds(pid) - cpuBefore;
  assertAllAnswered(`${options.method} ${options.url}`, result);
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    cpuUs: pid ? Math.round((cpu * 1e6) / result.requests.total) : null,
  };
}

async function main() {
  const started = Date.now();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  log(`commit ${commit}, ${os.cpus().length} cores, ${quick ? 'quick' : 'full'} run${only ? `, ${only} only` : ''}`);
  if (only) return onlySection(only, started, commit);

  const url = await createBenchDatabase(adminUrl, 'chatbots_bench');
  execFileSync(process.execPath, ['dist/cli/migrate.cli.js'], { cwd: root, env: { ...process.env, DATABASE_URL: url }, stdio: 'inherit' });
  let t = Date.now();
  const keys = await seedBase(url);
  log(`seeded tenants, bots, 50,000 conversations, 1,000,000 messages in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const webhooksKey = await createWebhooksKey(url);
  const bulkKey = await createBulkKey(url);

  const { tenantIds, bigBot, conversation } = await withDatabase(url, async (db) => {
    const ids = (await db.query(`SELECT idx, id FROM bench_tenant ORDER BY idx`)).rows.map((r) => r.id);
    return {
      tenantIds: ids,
      bigBot: (await db.query(`SELECT id FROM bench_bot WHERE tenant_idx = 0 AND idx = 0`)).rows[0].id,
      conversation: (await db.query(`SELECT id FROM "Conversation" WHERE "tenantId" = $1 ORDER BY "createdAt" DESC LIMIT 1`, [ids[0]])).rows[0].id,
    };
  });
  const widget = await seedWidget(url);
  log('seeded the widget bot: 500 documents, 10,000 passages');
  const keyToTenant = { ...Object.fromEntries(keys.map((key, idx) => [key, tenantIds[idx]])), [widget.publicKey]: widget.tenantId };
  const big = keys[0];
  const small = keys[1];

  const start = (name, script, env, port) => ({ port, proc: launch(name, script, env, port) });
  const servers = {
    service: start('service', 'dist/main.js', serviceEnv(url, 3401, SERVICE_NODE_OPTIONS), 3401),
    baseline: start('baseline', 'bench/baseline-server.mjs', baselineEnv(url, 3402, keyToTenant), 3402),
    peer: start('peer (typical NestJS + Prisma)', 'bench/peer/main.cjs', peerEnv(url, PEER_PORT), PEER_PORT),
    // No delivery worker here: the webhooks section measures the one of `service` alone.
    serviceNoLimiter: start(
      'service without limiter',
      'dist/main.js',
      { ...serviceEnv(url, 3403, SERVICE_NODE_OPTIONS), RATE_LIMIT_DISABLED: 'true', WEBHOOK_WORKER: 'false' },
      3403,
    ),
    baselineNaive: start(
      'baseline, SQL before the optimisations',
      'bench/baseline-server.mjs',
      { ...baselineEnv(url, 3405, keyToTenant), BASELINE_SQL: 'naive' },
      3405,
    ),
    floor: start('NestJS floor', 'bench/nest-floor.cjs', { PORT: '3404' }, 3404),
  };
  for (const server of Object.values(servers)) await waitForHttp(`http://127.0.0.1:${server.port}/api/v1/verify`);
  const visitor = await openConversation(`http://127.0.0.1:${servers.service.port}`, widget);

  // Service, baseline and, on the scenarios it implements (`peer`), the peer, in the same round.
  const urls = {
    service: `http://127.0.0.1:${servers.service.port}`,
    baseline: `http://127.0.0.1:${servers.baseline.port}`,
    peer: `http://127.0.0.1:${servers.peer.port}`,
  };
  const compare = (scenario) => measureRow(urls, scenario, measure, log);
  const peerOnes = peerScenarios(big, small);
  await checkPeerAnswers(urls, Object.values(peerOnes));

  const searchTerm = 'smith';
  const leadsPage = peerOnes.leadsPage;
  const leadsSearch = { name: `leads, search "${searchTerm}"`, path: `/api/v1/leads?search=${searchTerm}`, key: big };

  const growth = [];
  let emailSearch;
  for (const total of [10_000, 100_000, 1_000_000]) {
    t = Date.now();
    await growLeads(url, total);
    log(`leads grown to ${total.toLocaleString('en')} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    // A lookup by e-mail, as an integration finds one contact: chosen among the first leads, so
    // the same few leads match at every size.
    emailSearch ??= await oneEmailSearch(url, tenantIds[0], big);
    for (const scenario of [leadsPage, leadsSearch, emailSearch]) growth.push({ leads: total, ...(await compare(scenario)) });
  }
  await refreshCounters(url);

  const from = new Date(Date.now() - 90 * 86_400_000).toISOString();
  const to = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const scenarios = [
    peerOnes.verify,
    peerOnes.bots,
    leadsPage,
    { name: 'leads, deep page (offset 10,000)', path: '/api/v1/leads?offset=10000', key: big },
    leadsSearch,
    { name: 'leads, botId + from/to', path: `/api/v1/leads?botId=${bigBot}&from=${from}&to=${to}`, key: big },
    { name: 'messages of a conversation', path: `/api/v1/conversations/${conversation}/messages`, key: big },
    peerOnes.createLead,
    // Analytics of the big tenant (500,000 of the 1,000,000 messages), computed on the fly, at 5
    // connections: dashboards, not integrations, ask for them (at 50, 60-90 ms queries queue past
    // the statement timeout).
    { name: 'analytics overview, 30 days (5 connections)', path: `/api/v1/analytics/overview?from=${daysAgo(30)}&to=${daysAgo(0)}`, key: big, connections: 5 },
    {
      name: 'analytics timeseries, messages per day, 30 days (5 connections)',
      path: `/api/v1/analytics/timeseries?metric=messages&from=${daysAgo(30)}&to=${daysAgo(0)}`,
      key: big,
      connections: 5,
    },
    {
      name: 'analytics timeseries, messages per day, 365 days (5 connections)',
      path: `/api/v1/analytics/timeseries?metric=messages&from=${daysAgo(365)}&to=${daysAgo(0)}`,
      key: big,
      connections: 5,
    },
    widgetScenario(widget, visitor),
  ];
  const results = [];
  for (const scenario of scenarios) results.push(await compare(scenario));
  // Latency at a steady 200 requests/s (open loop; the widget at its own rate), service and baseline in turns.
  const steady = await measureSteady({
    servers: { service: urls.service, baseline: urls.baseline },
    // The widget at 20/s: a message searches 10,000 passages that all hold the question's words.
    scenarios: [peerOnes.verify, leadsPage, peerOnes.createLead, { ...widgetScenario(widget, visitor), rate: 20 }],
    seconds: DURATION,
    log,
  });

  // Analytics answer a manager's dashboard, one request at a time: their latency alone, unqueued.
  const analyticsAlone = [];
  for (const scenario of scenarios.filter((x) => x.name.startsWith('analytics'))) {
    const service = await measure(`http://127.0.0.1:${servers.service.port}`, scenario, 1);
    const baseline = await measure(`http://127.0.0.1:${servers.baseline.port}`, scenario, 1);
    analyticsAlone.push({ scenario: scenario.name.replace(' (5 connections)', ''), service, baseline });
    log(`${scenario.name}, 1 connection: service p50 ${service.p50} p99 ${service.p99} | baseline p50 ${baseline.p50} p99 ${baseline.p99}`);
  }

  // What the stack allows: an empty NestJS app against the same baseline verify.
  const floorVerify = await measure(`http://127.0.0.1:${servers.floor.port}`, scenarios[0]);
  const floor = { ...floorVerify, ratio: +(floorVerify.rps / results[0].baseline.rps).toFixed(2) };
  log(`empty NestJS app: ${floor.rps} req/s p50 ${floor.p50} p99 ${floor.p99} | ${floor.ratio} of the baseline's verify`);

  // The SQL optimisations, before and after in this run: the baseline with the earlier SQL.
  const sqlChanges = [];
  for (const [change, scenario, setUp] of [
    ['lead totals from counters', scenarios[2]],
    ['lead totals from counters, deep page read index first', scenarios[3]],
    ['message total from the conversation', scenarios[6]],
    ['one search column, LIKE for an ASCII term', leadsSearch, buildFieldSearchIndexes],
  ]) {
    const tearDown = await setUp?.(url);
    const before = await measure(`http://127.0.0.1:${servers.baselineNaive.port}`, scenario);
    const after = await measure(`http://127.0.0.1:${servers.baseline.port}`, scenario);
    await tearDown?.();
    sqlChanges.push({ change, scenario: scenario.name, before, after, speedup: +(after.rps / before.rps).toFixed(1) });
    log(`${change} (${scenario.name}): before ${before.rps} req/s p50 ${before.p50}, after ${after.rps} req/s p50 ${after.p50}`);
  }
  // The lead counter trigger's cost on inserts: the same inserts with the trigger disabled, right after.
  const createLead = scenarios[7];
  const withTrigger = await measure(`http://127.0.0.1:${servers.baseline.port}`, createLead);
  await setLeadCountTrigger(url, false);
  const withoutTrigger = await measure(`http://127.0.0.1:${servers.baseline.port}`, createLead);
  await setLeadCountTrigger(url, true);
  const trigger = { scenario: createLead.name, withTrigger, withoutTrigger, costPct: +((1 - withTrigger.rps / withoutTrigger.rps) * 100).toFixed(1) };
  log(`lead counter trigger on ${createLead.name}: with ${withTrigger.rps} req/s, without ${withoutTrigger.rps} req/s`);

  const limiter = [];
  for (const scenario of [scenarios[0], leadsPage]) {
    const withLimiter = await measure(`http://127.0.0.1:${servers.service.port}`, scenario);
    const without = await measure(`http://127.0.0.1:${servers.serviceNoLimiter.port}`, scenario);
    limiter.push({ scenario: scenario.name, withLimiter, without, costPct: +((1 - withLimiter.rps / without.rps) * 100).toFixed(1) });
    log(`limiter on ${scenario.name}: with ${withLimiter.rps} req/s p50 ${withLimiter.p50}, without ${without.rps} req/s p50 ${without.p50}`);
  }

  const rss = { service: peakRssMb(servers.service.proc.pid), baseline: peakRssMb(servers.baseline.proc.pid), peer: peakRssMb(servers.peer.proc.pid) };
  // Last, after the peak RSS: its endpoints are deleted when it ends, but nothing runs after it anyway.
  const webhooks = await measureWebhooks({
    baseUrl: `http://127.0.0.1:${servers.service.port}`,
    dbUrl: url,
    key: webhooksKey,
    measure,
    quick,
    log,
    connections: CONNECTIONS,
  });
  const leadsBulk = await measureLeadsBulk({
    baseUrl: `http://127.0.0.1:${servers.service.port}`,
    dbUrl: url,
    key: bulkKey,
    tenantId: tenantIds[BULK_TENANT],
    pid: servers.service.proc.pid,
    log,
  });
  for (const server of Object.values(servers)) await stopServer(server.proc);
  const accounts = await accountsSection(url);
  const privacy = await privacySection(url);
  const handoff = await handoffSection(url);
  const dashboard = await measureDashboard({ root, log, quick });
  // The embedded default alone on the machine, as a new user starts it (PGlite, demo data).
  const embedded = await embeddedSection({ root, log, quick });

  const report = {
    ...runHeader(commit),
    results,
    steady,
    growth,
    floor,
    sqlChanges,
    trigger,
    limiter,
    peakRssMb: rss,
    analyticsAlone,
    webhooks,
    leadsBulk,
    accounts,
    privacy,
    handoff,
    dashboard,
    embedded,
    minutes: +((Date.now() - started) / 60000).toFixed(1),
  };
  writeFileSync(path.join(root, 'bench/results.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(path.join(root, 'bench/results.md'), toMarkdown(report));
  log(`done in ${report.minutes} min: bench/results.md`);
}

/** The webhooks section's key: the create-lead scenario's tenant (the second), with webhooks:manage too. */
function createWebhooksKey(url) {
  return createBenchKey(url, 1, ['leads:read', 'leads:write', 'webhooks:manage'], 'bench webhooks');
}

/** An instant `days` days ago, whole seconds, as a query value. */
function daysAgo(days) {
  return encodeURIComponent(new Date(Math.floor(Date.now() / 1000) * 1000 - days * 86_400_000).toISOString());
}

/** --only=widget: the widget scenario alone, service against baseline, on the small seed. */
async function onlyWidget(url, keys, started, commit) {
  const widget = await seedWidget(url);
  const tenantIds = await withDatabase(url, async (db) => (await db.query(`SELECT id FROM bench_tenant ORDER BY idx`)).rows.map((r) => r.id));
  const keyToTenant = { ...Object.fromEntries(keys.map((key, idx) => [key, tenantIds[idx]])), [widget.publicKey]: widget.tenantId };
  const service = launch('service', 'dist/main.js', serviceEnv(url, 3401, SERVICE_NODE_OPTIONS), 3401);
  const baseline = launch('baseline', 'bench/baseline-server.mjs', baselineEnv(url, 3402, keyToTenant), 3402);
  for (const port of [3401, 3402]) await waitForHttp(`http://127.0.0.1:${port}/api/v1/verify`);
  const scenario = widgetScenario(widget, await openConversation('http://127.0.0.1:3401', widget));
  const baselineFigures = await measure('http://127.0.0.1:3402', scenario);
  const serviceFigures = await measure('http://127.0.0.1:3401', scenario);
  const [steady] = await measureSteady({
    servers: { service: 'http://127.0.0.1:3401', baseline: 'http://127.0.0.1:3402' },
    scenarios: [{ ...scenario, rate: 20 }],
    seconds: DURATION,
    log,
  });
  const sessions = await measureSessions(url, widget);
  await stopServer(service);
  await stopServer(baseline);
  const row = {
    scenario: scenario.name,
    service: serviceFigures,
    baseline: baselineFigures,
    ratio: +(serviceFigures.rps / baselineFigures.rps).toFixed(2),
    steady,
  };
  log(
    `${row.scenario}: service ${serviceFigures.rps} req/s p50 ${serviceFigures.p50} p99 ${serviceFigures.p99} | baseline ${baselineFigures.rps} req/s p50 ${baselineFigures.p50} p99 ${baselineFigures.p99} | ratio ${row.ratio}`,
  );
  writeFileSync(
    path.join(root, 'bench/results-widget.json'),
    JSON.stringify({ commit, date: new Date().toISOString(), quick, widget: row, sessions, minutes: +((Date.now() - started) / 60000).toFixed(1) }, null, 2) +
      '\n',
  );
}

/**
 * Known visitors: a widget session without and with an identity token on the service (port 3401),
 * and the token's verification alone, in this process: its share of the identified session's CPU.
 */
async function measureSessions(url, widget) {
  const secret = await seedIdentitySecret(url, widget.tenantId);
  const scenarios = await sessionScenarios(widget, secret);
  const anonymous = await measure('http://127.0.0.1:3401', scenarios.anonymous);
  const identified = await measure('http://127.0.0.1:3401', scenarios.identified);
  const verificationUs = await verificationCpuUs(secret, scenarios.token);
  const sharePct = +((100 * verificationUs) / identified.cpuUs).toFixed(1);
  for (const [name, m] of [
    [scenarios.anonymous.name, anonymous],
    [scenarios.identified.name, identified],
  ])
    log(`${name}: ${m.rps} req/s p50 ${m.p50} p99 ${m.p99}, ${m.cpuUs} µs CPU/req`);
  log(`identity token verification: ${verificationUs} µs CPU each, ${sharePct}% of the identified session's CPU`);
  return { anonymous, identified, verificationUs, verificationSharePct: sharePct };
}

/** The bulk section's tenant: neither the big one nor the create-lead scenario's. */
const BULK_TENANT = 2;

function createBulkKey(url) {
  return createBenchKey(url, BULK_TENANT, ['leads:read', 'leads:write'], 'bench bulk leads');
}

/** The accounts section on a service of its own (PUBLIC_URL set, so that log-ins carry its Origin), on the run's database. */
async function accountsSection(url) {
  const port = 3403;
  const service = launch('service-accounts', 'dist/main.js', { ...serviceEnv(url, port, SERVICE_NODE_OPTIONS), PUBLIC_URL: ACCOUNTS_ORIGIN }, port);
  await waitForHttp(`http://127.0.0.1:${port}/health/live`);
  const figures = await measureAccounts({ baseUrl: `http://127.0.0.1:${port}`, dbUrl: url, pid: service.pid, quick, log });
  await stopServer(service);
  return figures;
}

/** The privacy section on a service of its own that looks for a due retention sweep every second (RETENTION_CHECK_SECONDS). */
async function privacySection(url) {
  const port = 3406;
  const service = launch('service-privacy', 'dist/main.js', { ...serviceEnv(url, port, SERVICE_NODE_OPTIONS), RETENTION_CHECK_SECONDS: '1' }, port);
  await waitForHttp(`http://127.0.0.1:${port}/health/live`);
  const figures = await measurePrivacy({ baseUrl: `http://127.0.0.1:${port}`, dbUrl: url, quick, log });
  await stopServer(service);
  return figures;
}

/**
 * The handoff section: two instances sharing the database and Redis ($REDIS_URL, else the
 * machine's 127.0.0.1:6379), the agent's messages posted on one, the visitor's stream open on the other.
 */
async function handoffSection(url) {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const ports = [3408, 3409];
  const instances = ports.map((port, i) =>
    launch(`service-handoff-${'AB'[i]}`, 'dist/main.js', { ...serviceEnv(url, port, SERVICE_NODE_OPTIONS), REDIS_URL: redisUrl }, port),
  );
  for (const port of ports) await waitForHttp(`http://127.0.0.1:${port}/health/live`);
  const figures = await measureHandoff({
    urls: ports.map((port) => `http://127.0.0.1:${port}`),
    pids: instances.map((proc) => proc.pid),
    dbUrl: url,
    redisUrl,
    quick,
    log,
  });
  for (const proc of instances) await stopServer(proc);
  return figures;
}

/** --only=<section>: tenants, bots and keys (no conversations, messages or seeded leads), the service alone, that section. */
async function onlySection(section, started, commit) {
  if (section === 'embedded') return onlyEmbedded({ root, log, quick, started, commit });
  // The dashboard's own server is the embedded default with its demo data: no PostgreSQL needed.
  if (section === 'dashboard') return writeSection(section, await measureDashboard({ root, log, quick }), dashboardMarkdown, started, commit);
  const url = await createBenchDatabase(adminUrl, 'chatbots_bench');
  execFileSync(process.execPath, ['dist/cli/migrate.cli.js'], { cwd: root, env: { ...process.env, DATABASE_URL: url }, stdio: 'inherit' });
  if (section === 'accounts') return writeSection(section, await accountsSection(url), accountsMarkdown, started, commit);
  const keys = await seedBase(url, { conversations: false });
  if (section === 'privacy') return writeSection(section, await privacySection(url), privacyMarkdown, started, commit);
  if (section === 'handoff') return writeSection(section, await handoffSection(url), handoffMarkdown, started, commit);
  if (section === 'widget') return onlyWidget(url, keys, started, commit);
  if (section === 'peer') return onlyPeerSection(url, keys, started, commit);
  const key = section === 'webhooks' ? await createWebhooksKey(url) : await createBulkKey(url);
  const tenantId = await withDatabase(url, async (db) => (await db.query(`SELECT id FROM bench_tenant WHERE idx = $1`, [BULK_TENANT])).rows[0].id);
  log('seeded tenants, bots and keys');
  const port = 3401;
  const service = launch('service', 'dist/main.js', serviceEnv(url, port, SERVICE_NODE_OPTIONS), port);
  await waitForHttp(`http://127.0.0.1:${port}/api/v1/verify`);
  const baseUrl = `http://127.0.0.1:${port}`;
  const figures =
    section === 'webhooks'
      ? await measureWebhooks({ baseUrl, dbUrl: url, key, measure, quick, log, connections: CONNECTIONS })
      : await measureLeadsBulk({ baseUrl, dbUrl: url, key, tenantId, pid: service.pid, log });
  await stopServer(service);
  writeSection(section, figures, section === 'webhooks' ? webhooksMarkdown : leadsBulkMarkdown, started, commit);
}

/** What every results file starts with: the commit, the machine, Node and the run's settings. */
function runHeader(commit) {
  return {
    commit,
    cores: os.cpus().length,
    cpu: os.cpus()[0].model,
    node: process.version,
    nodeOptions: SERVICE_NODE_OPTIONS,
    connections: CONNECTIONS,
    durationSeconds: DURATION,
    quick,
    date: new Date().toISOString(),
  };
}

/** Writes bench/results-<section>.md and .json for an --only run. */
function writeSection(section, figures, markdown, started, commit) {
  const report = {
    ...runHeader(commit),
    [section]: figures,
    minutes: +((Date.now() - started) / 60000).toFixed(1),
  };
  writeFileSync(path.join(root, `bench/results-${section}.json`), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(
    path.join(root, `bench/results-${section}.md`),
    [
      `# Benchmark results: ${section} only`,
      ``,
      `Commit ${commit}, ${report.date}; ${report.cores} cores (${report.cpu}), Node ${report.node}; the leads table starts empty (the full run has 1,000,000 leads). Made with \`DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/run.mjs --only=${section}${quick ? ' --quick' : ''}\`.`,
      ``,
      markdown(figures),
    ].join('\n'),
  );
  log(`done in ${report.minutes} min: bench/results-${section}.md`);
}

/** --only=peer: bench/peer-section.mjs, on tenants, bots, keys and 1,000,000 leads. */
async function onlyPeerSection(url, keys, started, commit) {
  const tenantIds = await withDatabase(url, async (db) => (await db.query(`SELECT id FROM bench_tenant ORDER BY idx`)).rows.map((r) => r.id));
  const header = runHeader(commit);
  await onlyPeer({ root, url, keys, tenantIds, launch, measure, log, quick, nodeOptions: SERVICE_NODE_OPTIONS, header });
  log(`done in ${((Date.now() - started) / 60000).toFixed(1)} min: bench/results-peer.md`);
}

/** Disables or re-enables the Lead_count trigger; re-enabled, the counters are set from the rows again. */
function setLeadCountTrigger(url, enabled) {
  return withDatabase(url, async (db) => {
    // One transaction: ALTER TABLE locks out inserts (such as requests the load generator left in
    // flight) until the counters are set again.
    await db.query('BEGIN');
    await db.query(`ALTER TABLE "Lead" ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER "Lead_count"`);
    if (enabled) await refreshLeadCounters(db);
    await db.query('COMMIT');
  });
}

/**
 * Builds the per-field trigram indexes that served search before the searchText column (migration
 * 20261122070000_lead_search_text_column), for the baseline's earlier search SQL; returns their removal.
 */
async function buildFieldSearchIndexes(url) {
  const fields = ['name', 'email', 'company'];
  await withDatabase(url, async (db) => {
    for (const field of fields) await db.query(`CREATE INDEX "bench_${field}_trgm" ON "Lead" USING GIN ("tenantId" uuid_ops, "${field}" gin_trgm_ops)`);
    // Both sides start alike: VACUUM empties the searchText index's pending list, which the create
    // scenario's inserts filled (a search reads all of it: -17% with 1,600 pending inserts, measured
    // with pgbench), and CHECKPOINT writes out the index builds before the measurement.
    await db.query(`VACUUM ANALYZE "Lead"`);
    await db.query(`CHECKPOINT`);
  });
  return () =>
    withDatabase(url, async (db) => {
      for (const field of fields) await db.query(`DROP INDEX "bench_${field}_trgm"`);
    });
}

async function oneEmailSearch(url, tenantId, key) {
  const { rows } = await withDatabase(url, (db) => db.query(`SELECT email FROM "Lead" WHERE "tenantId" = $1 ORDER BY "createdAt", id LIMIT 1`, [tenantId]));
  const term = rows[0].email.split('@')[0];
  return { name: `leads, search "${term}"`, path: `/api/v1/leads?search=${encodeURIComponent(term)}`, key };
}

function toMarkdown(r) {
  const row = (x) => `| ${x.scenario} | ${comparisonCells(x)} |`;
  const cpu = (m) => m.cpuUs ?? '–';
  return [
    `# Benchmark results`,
    ``,
    `Commit ${r.commit}, ${r.date}; ${r.cores} cores (${r.cpu}), Node ${r.node}; ${r.connections} connections, ${r.durationSeconds} s per measurement after a warm-up; load generator, servers and PostgreSQL on the same machine. Made with \`DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench${r.quick ? ' -- --quick' : ''}\`.`,
    ``,
    `## Service against the bare baseline and a typical NestJS + Prisma peer (1,000,000 leads, 50,000 conversations, 1,000,000 messages)`,
    ``,
    `| scenario | ${COMPARISON_HEADER[0]} |`,
    `|---|${COMPARISON_HEADER[1]}|`,
    ...r.results.map(row),
    ``,
    `Peak RSS under load: service ${r.peakRssMb.service} MB (NODE_OPTIONS ${r.nodeOptions}, as in the Dockerfile), baseline ${r.peakRssMb.baseline} MB, peer ${r.peakRssMb.peer} MB.`,
    ``,
    peerDescription(r.nodeOptions),
    ``,
    steadyMarkdown(r.steady),
    `## What the stack allows`,
    ``,
    `An empty NestJS application (bench/nest-floor.cjs: Express platform, no middleware, guard, pipe, database or logging) answering verify's JSON from memory: ${r.floor.rps} req/s, p50 ${r.floor.p50} ms, p99 ${r.floor.p99} ms, ${cpu(r.floor)} µs of CPU per request, ${r.floor.ratio} of the baseline's verify (which queries the database).`,
    ``,
    `## Growth with data (the big tenant holds 20% of all leads)`,
    ``,
    `| total leads | scenario | ${COMPARISON_HEADER[0]} |`,
    `|---|---|${COMPARISON_HEADER[1]}|`,
    ...r.growth.map((x) => `| ${x.leads.toLocaleString('en')} ` + row(x)),
    ``,
    `## Optimisations of the SQL, before and after (the baseline with the earlier SQL, same run)`,
    ``,
    `| change | scenario | before req/s | p50 ms | p99 ms | CPU µs/req | after req/s | p50 ms | p99 ms | CPU µs/req | speed-up |`,
    `|---|---|---|---|---|---|---|---|---|---|---|`,
    ...r.sqlChanges.map(
      (x) =>
        `| ${x.change} | ${x.scenario} | ${x.before.rps} | ${x.before.p50} | ${x.before.p99} | ${cpu(x.before)} | ${x.after.rps} | ${x.after.p50} | ${x.after.p99} | ${cpu(x.after)} | ${x.speedup}x |`,
    ),
    ``,
    `Cost of the lead counter trigger on inserts (baseline, ${r.trigger.scenario}): ${r.trigger.withTrigger.rps} req/s with it, ${r.trigger.withoutTrigger.rps} without (${r.trigger.costPct}%).`,
    ``,
    `## Cost of the rate limiter (in-process store)`,
    ``,
    `| scenario | with limiter req/s | p50 ms | CPU µs/req | without req/s | p50 ms | CPU µs/req | cost |`,
    `|---|---|---|---|---|---|---|---|`,
    ...r.limiter.map(
      (x) =>
        `| ${x.scenario} | ${x.withLimiter.rps} | ${x.withLimiter.p50} | ${cpu(x.withLimiter)} | ${x.without.rps} | ${x.without.p50} | ${cpu(x.without)} | ${x.costPct}% |`,
    ),
    ``,
    `### Analytics, one request at a time (1 connection; the tables above queue 50)`,
    ``,
    `| scenario | service p50 ms | p99 ms | baseline p50 ms | p99 ms |`,
    `|---|---|---|---|---|`,
    ...r.analyticsAlone.map((x) => `| ${x.scenario} | ${x.service.p50} | ${x.service.p99} | ${x.baseline.p50} | ${x.baseline.p99} |`),
    ``,
    webhooksMarkdown(r.webhooks),
    leadsBulkMarkdown(r.leadsBulk),
    accountsMarkdown(r.accounts),
    privacyMarkdown(r.privacy),
    handoffMarkdown(r.handoff),
    dashboardMarkdown(r.dashboard),
    embeddedMarkdown(r.embedded),
  ].join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
