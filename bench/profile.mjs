// npm run bench:profile: where the service's CPU goes on one scenario. Starts the built service
// (dist/) with --cpu-prof on the database bench:compare seeded (chatbots_compare), sends the
// scenario's requests for a while at 50 connections, stops the service and prints the profile's
// self time by package and by function (the .cpuprofile is kept for Chrome's DevTools).
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:profile -- \
//     [--scenario leads] [--seconds 10] [--top 40]
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createBenchKey, withDatabase } from './seed.mjs';
import { openConversation, seedWidget, widgetScenario } from './widget.mjs';
import { imageNodeOptions, loadOptions, serviceEnv, startServer, stopServer, waitForHttp } from './servers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('Set DATABASE_URL to the PostgreSQL server bench:compare seeded (database chatbots_compare)');
const url = new URL(adminUrl);
url.pathname = '/chatbots_compare';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const SCENARIO = option('scenario', 'leads');
const SECONDS = Number(option('seconds', 10));
const TOP = Number(option('top', 40));
const PORT = 3690;
const log = (...parts) => console.log(`[profile ${new Date().toISOString().slice(11, 19)}]`, ...parts);

async function main() {
  const key = await createBenchKey(url.toString(), 0, ['bots:read', 'conversations:read', 'leads:read', 'leads:write', 'analytics:read'], 'profile');
  const conversation = await withDatabase(url.toString(), async (db) => {
    const tenant = (await db.query(`SELECT id FROM bench_tenant WHERE idx = 0`)).rows[0].id;
    return (await db.query(`SELECT id FROM "Conversation" WHERE "tenantId" = $1 ORDER BY "createdAt" DESC LIMIT 1`, [tenant])).rows[0].id;
  });
  const scenarios = {
    verify: { path: '/api/v1/verify' },
    bots: { path: '/api/v1/bots' },
    leads: { path: '/api/v1/leads' },
    messages: { path: `/api/v1/conversations/${conversation}/messages` },
    create: { path: '/api/v1/leads', method: 'POST', body: { name: 'Bench Lead', email: 'bench.lead@example.com', company: 'Acme Corp', tags: ['bench'] } },
  };
  const widget = SCENARIO === 'widget' ? await seedWidget(url.toString()) : undefined;
  if (!scenarios[SCENARIO] && !widget) throw new Error(`--scenario is one of ${Object.keys(scenarios).join(', ')}, widget`);

  const dir = path.join(root, 'bench', 'results', 'profiles');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const nodeOptions = imageNodeOptions(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  const child = startServer('service', process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'dist/main.js'], {
    cwd: root,
    env: serviceEnv(url.toString(), PORT, nodeOptions),
    log,
  });
  await waitForHttp(`http://127.0.0.1:${PORT}/health/live`);
  const scenario = widget ? widgetScenario(widget, await openConversation(`http://127.0.0.1:${PORT}`, widget)) : { ...scenarios[SCENARIO], key };
  const options = loadOptions(`http://127.0.0.1:${PORT}`, scenario, 50);
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration: SECONDS });
  log(`${SCENARIO}: ${Math.round(result.requests.average)} req/s, ${result.non2xx} non-2xx`);
  await stopServer(child);

  const file = path.join(
    dir,
    readdirSync(dir).find((name) => name.endsWith('.cpuprofile')),
  );
  summarise(JSON.parse(readFileSync(file, 'utf8')));
  log(`profile: ${path.relative(root, file)}`);
}

/** Self time per package (node_modules/<name>, or the service's own code) and per function. */
function summarise(profile) {
  const deltas = profile.timeDeltas;
  const selfMicros = new Map();
  profile.samples.forEach((id, index) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (deltas[index] ?? 0)));
  const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);
  const byPackage = new Map();
  const byFunction = new Map();
  for (const node of profile.nodes) {
    const micros = selfMicros.get(node.id) ?? 0;
    if (!micros) continue;
    const { functionName, url: source, lineNumber } = node.callFrame;
    const where = packageOf(source);
    byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
    const name = `${functionName || '(anonymous)'} ${source ? `${path.basename(source)}:${lineNumber + 1}` : ''} [${where}]`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const table = (map, count) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, micros]) => `${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  console.log(`\nSelf time by package (${(total / 1e6).toFixed(1)} s sampled):\n${table(byPackage, 25)}`);
  console.log(`\nSelf time by function:\n${table(byFunction, TOP)}`);
}

function packageOf(source) {
  if (!source) return '(native, gc, idle)';
  if (source.startsWith('node:')) return source;
  const modules = source.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = source.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return source.includes('/dist/') ? `service: ${source.slice(source.indexOf('/dist/') + 6)}` : source;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
