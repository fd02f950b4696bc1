// The peer in the benchmark (bench/peer/: a typical NestJS + Prisma build of four endpoints): its
// scenarios, the check that it answers as the service does, the service/baseline/peer rows and
// table bench/run.mjs writes, and the `--only=peer` section (peer rounds and the steady-rate
// latency alone, on tenants, bots, keys and 1,000,000 leads: all these four endpoints read).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { growLeads } from './seed.mjs';
import { measureSteady, steadyMarkdown } from './open-loop.mjs';
import { baselineEnv, peakRssMb, peerEnv, serviceEnv, stopServer, waitForHttp } from './servers.mjs';

export const PEER_PORT = 3406;

/** The scenarios the peer implements (marked `peer`): verify, list bots, the leads page, create lead. */
export function peerScenarios(big, small) {
  return {
    verify: { name: 'verify', path: '/api/v1/verify', key: big, peer: true },
    bots: { name: 'list bots', path: '/api/v1/bots', key: big, peer: true },
    leadsPage: { name: 'leads, first page', path: '/api/v1/leads', key: big, peer: true },
    createLead: {
      name: 'create lead',
      path: '/api/v1/leads',
      method: 'POST',
      key: small,
      body: { name: 'Bench Lead', email: 'bench@example.com', company: 'Acme Corp', tags: ['bench'] },
      peer: true,
    },
  };
}

/**
 * One scenario on the baseline, the service and (for a peer scenario, when it runs) the peer, one
 * after the other. `urls`: { service, baseline, peer? }; `measure(baseUrl, scenario)` is run.mjs's.
 */
export async function measureRow(urls, scenario, measure, log) {
  const baseline = await measure(urls.baseline, scenario);
  const service = await measure(urls.service, scenario);
  const peer = scenario.peer && urls.peer ? await measure(urls.peer, scenario) : undefined;
  const row = {
    scenario: scenario.name,
    service,
    baseline,
    ratio: +(service.rps / baseline.rps).toFixed(2),
    ...(peer && { peer, peerRatio: +(service.rps / peer.rps).toFixed(2) }),
  };
  const figures = (x) => `${x.rps} req/s p50 ${x.p50} p99 ${x.p99} CPU ${x.cpuUs} µs/req`;
  log(
    `${scenario.name}: service ${figures(service)} | baseline ${figures(baseline)} | ratio ${row.ratio}${peer ? ` | peer ${figures(peer)} | service/peer ${row.peerRatio}` : ''}`,
  );
  return row;
}

export const COMPARISON_HEADER = [
  'service req/s | p50 ms | p99 ms | service CPU µs/req | baseline req/s | p50 ms | p99 ms | baseline CPU µs/req | service/baseline ratio | peer req/s | p50 ms | p99 ms | peer CPU µs/req | service/peer ratio',
  '---|---|---|---|---|---|---|---|---|---|---|---|---|---',
];

/** The cells of COMPARISON_HEADER for a measureRow row (– where the peer does not run). */
export function comparisonCells(x) {
  const server = (m) => `${m.rps} | ${m.p50} | ${m.p99} | ${m.cpuUs ?? '–'}`;
  return `${server(x.service)} | ${server(x.baseline)} | ${x.ratio} | ${x.peer ? `${server(x.peer)} | ${x.peerRatio}` : '– | – | – | – | –'}`;
}

/**
 * Throws unless the peer answers each scenario with the service's status and the same shape (the
 * same keys, at every level; values differ), so that the two are measured doing the same job.
 */
export async function checkPeerAnswers(urls, scenarios) {
  const shape = (value) =>
    Array.isArray(value)
      ? value.length
        ? [shape(value[0])]
        : []
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, shape(value[k])]),
          )
        : null;
  for (const scenario of scenarios) {
    const answers = [];
    for (const baseUrl of [urls.service, urls.peer]) {
      const response = await fetch(baseUrl + scenario.path, {
        method: scenario.method ?? 'GET',
        headers: { 'X-API-Key': scenario.key, 'X-Forwarded-Proto': 'https', ...(scenario.body && { 'Content-Type': 'application/json' }) },
        body: scenario.body && JSON.stringify(scenario.body),
      });
      answers.push({ status: response.status, shape: JSON.stringify(shape(await response.json())) });
    }
    const [service, peer] = answers;
    if (service.status !== peer.status || service.shape !== peer.shape || service.status >= 300) {
      throw new Error(`${scenario.name}: the service answers ${service.status} ${service.shape}, the peer ${peer.status} ${peer.shape}`);
    }
  }
}

/**
 * --only=peer: the peer's four scenarios on service, baseline and peer, then the steady-rate
 * latency of the service and the baseline; writes bench/results-peer.md and .json. `keys` are
 * seedBase's (one per tenant, the first the big one's); `launch(name, script, env, port)` starts
 * a server whose CPU `measure` then reads.
 */
export async function onlyPeer({ root, url, keys, tenantIds, launch, measure, log, quick, nodeOptions, header }) {
  const t = Date.now();
  await growLeads(url, 1_000_000);
  log(`leads grown to 1,000,000 in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const servers = {
    service: launch('service', 'dist/main.js', serviceEnv(url, 3401, nodeOptions), 3401),
    baseline: launch('baseline', 'bench/baseline-server.mjs', baselineEnv(url, 3402, Object.fromEntries(keys.map((key, idx) => [key, tenantIds[idx]]))), 3402),
    peer: launch('peer', 'bench/peer/main.cjs', peerEnv(url, PEER_PORT), PEER_PORT),
  };
  const urls = { service: 'http://127.0.0.1:3401', baseline: 'http://127.0.0.1:3402', peer: `http://127.0.0.1:${PEER_PORT}` };
  for (const baseUrl of Object.values(urls)) await waitForHttp(`${baseUrl}/api/v1/verify`);
  const scenarios = peerScenarios(keys[0], keys[1]);
  await checkPeerAnswers(urls, Object.values(scenarios));
  log('the peer answers each scenario as the service does (status and shape)');

  const results = [];
  for (const scenario of Object.values(scenarios)) results.push(await measureRow(urls, scenario, measure, log));
  const steady = await measureSteady({
    servers: { service: urls.service, baseline: urls.baseline },
    scenarios: [scenarios.verify, scenarios.leadsPage, scenarios.createLead],
    seconds: quick ? 4 : 10,
    log,
  });
  const peakRss = Object.fromEntries(Object.entries(servers).map(([name, proc]) => [name, peakRssMb(proc.pid)]));
  for (const proc of Object.values(servers)) await stopServer(proc);

  const report = { ...header, results, steady, peakRssMb: peakRss };
  writeFileSync(path.join(root, 'bench/results-peer.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(
    path.join(root, 'bench/results-peer.md'),
    [
      `# Benchmark results: service, baseline and peer`,
      ``,
      `Commit ${header.commit}, ${header.date}; ${header.cores} cores (${header.cpu}), Node ${header.node}; ${header.connections} connections, ${header.durationSeconds} s per measurement after a warm-up; tenants, bots, keys and 1,000,000 leads (no conversations or messages: these endpoints do not read them). Made with \`DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/run.mjs --only=peer${quick ? ' --quick' : ''}\`.`,
      ``,
      peerMarkdown(results, peakRss, nodeOptions),
      steadyMarkdown(steady),
    ].join('\n'),
  );
  return report;
}

/** What the peer is and how CPU per request is read, under a table with its columns. */
export function peerDescription(nodeOptions) {
  return `The peer (bench/peer/) implements verify, list bots, the leads page and create lead as the NestJS and Prisma documentation would: a global \`ValidationPipe({ whitelist: true, transform: true })\`, a guard that hashes the key and looks it up with Prisma on every request, \`@nestjs/throttler\` with its in-memory storage, \`nestjs-pino\` defaults, \`count\` + \`findMany\` for a page, on the same generated Prisma client and \`@prisma/adapter-pg\`, with Node's default flags (the service: ${nodeOptions || 'none'}). Its create is one INSERT, as the baseline's; the service's statement also queues a lead.created event (its outbox rows, in the same statement). CPU µs/req: the server process's CPU time (user + system, /proc) over the measurement, per answered request.`;
}

/** The service/baseline/peer table. */
export function peerMarkdown(rows, peakRss, nodeOptions) {
  return [
    `## Service, bare baseline and a typical NestJS + Prisma peer`,
    ``,
    peerDescription(nodeOptions),
    ``,
    `| scenario | ${COMPARISON_HEADER[0]} |`,
    `|---|${COMPARISON_HEADER[1]}|`,
    ...rows.map((x) => `| ${x.scenario} | ${comparisonCells(x)} |`),
    ``,
    `Peak RSS: ${Object.entries(peakRss)
      .map(([name, mb]) => `${name} ${mb} MB`)
      .join(', ')}.`,
    ``,
  ].join('\n');
}
