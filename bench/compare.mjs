// npm run bench:compare: before and after of a change to the service, in the same run. Builds of
// two or more versions (a git ref, or the working tree) run side by side on one seeded database
// and are measured in alternating rounds, so that the machine's drift and noise fall on all of
// them alike. Reports per scenario the median requests/s and the median CPU time the server
// process spent per request (from /proc: steadier than requests/s on a shared machine).
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:compare -- \
//     [--rounds 8] [--seconds 4] [--connections 50] [--scenarios verify,bots,widget] <variant> <variant> ...
// A variant is `git:<ref>` (built in a worktree, bench/results/builds/<sha>; `git worktree prune`
// after deleting them) or `.` (this working tree's dist/, built by npm run), optionally followed by
// Node flags after `@`: `.@--max-semi-space-size=32`. Every variant runs on this tree's
// node_modules and migrations (the run warns when a ref's differ).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { createBenchDatabase, growLeads, refreshCounters, seedBase, withDatabase } from './seed.mjs';
import { openConversation, seedWidget, widgetScenario } from './widget.mjs';
import { assertAllAnswered, imageNodeOptions, loadOptions, peakRssMb, serviceEnv, startServer, stopServer, waitForHttp } from './servers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('Set DATABASE_URL to a PostgreSQL server (a database "chatbots_compare" is created there)');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args.splice(at, 2)[1];
};
const ROUNDS = Number(option('rounds', 8));
const SECONDS = Number(option('seconds', 4));
const CONNECTIONS = Number(option('connections', 50));
const only = option('scenarios', 'verify,bots,leads,messages,create,create-key,widget').split(',');
const variants = args;
if (variants.length < 2) throw new Error('Name at least two variants: git:<ref> or . (the working tree), each optionally @<node flags>');

const log = (...parts) => console.log(`[compare ${new Date().toISOString().slice(11, 19)}]`, ...parts);
const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** Each version runs as its own image ran it (its Dockerfile's ENV NODE_OPTIONS); a variant's flags come on top. */
function dockerfileOf(source) {
  return source === '.'
    ? readFileSync(path.join(root, 'Dockerfile'), 'utf8')
    : execFileSync('git', ['show', `${source.slice('git:'.length)}:Dockerfile`], { cwd: root }).toString();
}

/** The dist/ directory of a variant, building a git ref in a worktree of its own the first time. */
function distOf(source) {
  if (source === '.') return path.join(root, 'dist');
  const sha = execFileSync('git', ['rev-parse', '--short', source.slice('git:'.length)], { cwd: root })
    .toString()
    .trim();
  const dir = path.join(root, 'bench', 'results', 'builds', sha);
  if (!existsSync(path.join(dir, 'dist', 'main.js'))) {
    log(`building ${source} (${sha}) in ${path.relative(root, dir)}`);
    mkdirSync(path.dirname(dir), { recursive: true });
    if (!existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, sha], { cwd: root, stdio: 'ignore' });
    if (!existsSync(path.join(dir, 'node_modules'))) symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  // The build runs on this tree's node_modules and the database on this tree's migrations.
  for (const file of ['package-lock.json', 'prisma/migrations']) {
    if (execFileSync('git', ['diff', '--name-only', sha, '--', file], { cwd: root }).toString().trim()) {
      log(`warning: ${file} differs between ${source} and this tree; ${source} runs with this tree's`);
    }
  }
  return path.join(dir, 'dist');
}

const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
};
/**
 * The CPU time of the PostgreSQL backends serving the compare database (the servers' pooled
 * connections, which stay open through a measurement), read from /proc: the database's share of a
 * request, apart from what other databases on the same server are doing meanwhile.
 */
async function databaseCpuSeconds(db) {
  const { rows } = await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
  let total = 0;
  for (const { pid } of rows) {
    try {
      total += cpuSeconds(pid);
    } catch {} // a backend that ended meanwhile
  }
  return total;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root }).toString().trim() !== '';
  const servers = variants.map((spec, index) => {
    // Flags start at an "@--", so that refs such as main@{1} stay whole.
    const [source, ...flags] = spec.split(/@(?=--)/);
    // The working tree is named by its commit, marked when it holds uncommitted changes.
    const label = source === '.' ? [`${commit}${dirty ? '+changes' : ''}`, ...flags].join('@') : spec;
    return { spec: label, dist: distOf(source), nodeOptions: imageNodeOptions(dockerfileOf(source)), flags, port: 3601 + index };
  });

  const url = await createBenchDatabase(adminUrl, 'chatbots_compare');
  execFileSync(process.execPath, ['dist/cli/migrate.cli.js'], { cwd: root, env: { ...process.env, DATABASE_URL: url }, stdio: 'ignore' });
  const keys = await seedBase(url);
  await growLeads(url, 100_000);
  await refreshCounters(url);
  const conversation = await withDatabase(url, async (db) => {
    const tenant = (await db.query(`SELECT id FROM bench_tenant WHERE idx = 0`)).rows[0].id;
    return (await db.query(`SELECT id FROM "Conversation" WHERE "tenantId" = $1 ORDER BY "createdAt" DESC LIMIT 1`, [tenant])).rows[0].id;
  });
  const widget = only.includes('widget') ? await seedWidget(url) : undefined;
  log(`seeded 100 tenants, 100,000 leads, 50,000 conversations, 1,000,000 messages${widget ? ', 10,000 passages' : ''}`);

  const scenarios = [
    { name: 'verify', path: '/api/v1/verify' },
    { name: 'bots', path: '/api/v1/bots' },
    { name: 'leads', path: '/api/v1/leads' },
    { name: 'messages', path: `/api/v1/conversations/${conversation}/messages` },
    {
      name: 'create',
      path: '/api/v1/leads',
      method: 'POST',
      body: { name: 'Bench Lead', email: 'bench.lead@example.com', company: 'Acme Corp', tags: ['bench'] },
    },
    {
      // The same create as a careful integrator sends it: a fresh Idempotency-Key on every request.
      name: 'create-key',
      path: '/api/v1/leads',
      method: 'POST',
      body: { name: 'Bench Lead', email: 'bench.lead@example.com', company: 'Acme Corp', tags: ['bench'] },
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': randomUUID() } }),
    },
  ].filter((scenario) => only.includes(scenario.name));

  for (const server of servers) {
    server.child = startServer(server.spec, process.execPath, [...server.flags, path.join(server.dist, 'main.js')], {
      cwd: path.dirname(server.dist),
      env: serviceEnv(url, server.port, server.nodeOptions),
      log,
    });
  }
  for (const server of servers) await waitForHttp(`http://127.0.0.1:${server.port}/health/live`);
  // The visitor's conversation, opened through the first variant (every variant verifies the same token secret).
  if (widget) scenarios.push({ ...widgetScenario(widget, await openConversation(`http://127.0.0.1:${servers[0].port}`, widget)), name: 'widget' });

  const database = new pg.Client({ connectionString: url });
  await database.connect();
  const results = [];
  for (const scenario of scenarios) {
    const runs = servers.map(() => ({ rps: [], cpuUs: [], dbCpuUs: [] }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, server] of servers.entries()) {
        const options = loadOptions(`http://127.0.0.1:${server.port}`, { ...scenario, key: scenario.key ?? keys[0] }, CONNECTIONS);
        if (round === 0) await autocannon({ ...options, duration: 2 });
        const before = cpuSeconds(server.child.pid);
        const databaseBefore = await databaseCpuSeconds(database);
        const result = await autocannon({ ...options, duration: SECONDS });
        const databaseCpu = (await databaseCpuSeconds(database)) - databaseBefore;
        assertAllAnswered(`${server.spec} ${scenario.name}`, result);
        runs[index].rps.push(Math.round(result.requests.average));
        runs[index].cpuUs.push(Math.round(((cpuSeconds(server.child.pid) - before) * 1e6) / result.requests.total));
        runs[index].dbCpuUs.push(Math.round((databaseCpu * 1e6) / result.requests.total));
      }
    }
    const row = {
      scenario: scenario.name,
      variants: servers.map((server, index) => ({
        variant: server.spec,
        rps: median(runs[index].rps),
        cpuUsPerRequest: median(runs[index].cpuUs),
        dbCpuUsPerRequest: median(runs[index].dbCpuUs),
        runs: runs[index],
      })),
    };
    results.push(row);
    log(
      `${scenario.name}: ${row.variants.map((v) => `${v.variant} ${v.rps} req/s, ${v.cpuUsPerRequest} us CPU/request, database ${v.dbCpuUsPerRequest} us`).join(' | ')}`,
    );
  }
  await database.end();
  const peakRss = Object.fromEntries(servers.map((server) => [server.spec, peakRssMb(server.child.pid)]));
  for (const server of servers) await stopServer(server.child);

  const first = servers[0].spec;
  const lines = [
    `# Before and after, same run`,
    '',
    `Commit ${commit}, ${new Date().toISOString()}; ${os.cpus().length} cores (${os.cpus()[0].model.split(' ').slice(0, 2).join(' ')}), Node ${process.version}; ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${SECONDS} s per variant and scenario, medians; 100,000 leads. Made with \`DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:compare -- ${process.argv.slice(2).join(' ')}\`.`,
    '',
    `| scenario | ${servers.map((s) => `${s.spec} req/s | CPU µs/request | database CPU µs/request`).join(' | ')} | CPU per request against ${first} |`,
    `|---|${servers.map(() => '---|---|---').join('|')}|---|`,
    ...results.map(
      (row) =>
        `| ${row.scenario} | ${row.variants.map((v) => `${v.rps} | ${v.cpuUsPerRequest} | ${v.dbCpuUsPerRequest}`).join(' | ')} | ${row.variants
          .slice(1)
          .map((v) => `${v.variant}: ${(((v.cpuUsPerRequest - row.variants[0].cpuUsPerRequest) / row.variants[0].cpuUsPerRequest) * 100).toFixed(0)}%`)
          .join(', ')} |`,
    ),
    '',
    `Peak RSS: ${Object.entries(peakRss)
      .map(([spec, mb]) => `${spec} ${mb} MB`)
      .join(', ')}.`,
    '',
  ];
  writeFileSync(path.join(root, 'bench', 'compare.md'), lines.join('\n'));
  writeFileSync(
    path.join(root, 'bench', 'compare.json'),
    JSON.stringify({ commit, rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS, results, peakRss }, null, 2) + '\n',
  );
  log('wrote bench/compare.md and bench/compare.json');
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
