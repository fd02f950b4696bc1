// The accounts section of npm run bench (issue 22): log-in latency and memory at 20 concurrent
// log-ins (argon2id, hashing bounded to 2 at once), and the CPU per request of a session-
// authenticated GET /api/v1/leads against the key-authenticated one, alternating on one server.
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/run.mjs --only=accounts [--quick]
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { withDatabase } from './seed.mjs';
import { assertAllAnswered, cpuSeconds, peakRssMb } from './servers.mjs';

/** The service's own origin in this section (PUBLIC_URL): what a browser on the dashboard sends. */
export const ACCOUNTS_ORIGIN = 'https://bench.local';
const PASSWORD = 'bench password 123';
const LEADS = 10_000;

const rssMb = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);

async function call(baseUrl, method, path, { body, headers = {} } = {}) {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https', Origin: ACCOUNTS_ORIGIN, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { json: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A user with a Pro tenant, its key, and LEADS leads, made through the API. */
async function seed(baseUrl, dbUrl) {
  const email = `bench-${Date.now()}@example.com`;
  const signup = await call(baseUrl, 'POST', '/auth/v1/signup', { body: { email, password: PASSWORD, name: 'Bench Owner', tenantName: 'Bench Accounts' } });
  const cookie = signup.headers.get('set-cookie').split(';')[0];
  const tenantId = signup.json.memberships[0].tenant.id;
  await withDatabase(dbUrl, (db) => db.query(`UPDATE "Tenant" SET plan = 'pro' WHERE id = $1`, [tenantId]));
  await new Promise((resolve) => setTimeout(resolve, 1_100)); // the session cache's second
  const user = { Cookie: cookie, 'X-Tenant-Id': tenantId };
  const { json } = await call(baseUrl, 'POST', '/api/v1/api-keys', { headers: user, body: { name: 'bench', scopes: ['leads:read', 'leads:write'] } });
  for (let batch = 0; batch < LEADS / 1_000; batch++) {
    const leads = Array.from({ length: 1_000 }, (_, i) => ({ name: `Lead ${batch}-${i}`, email: `lead${batch}-${i}@example.com`, company: 'Acme' }));
    await call(baseUrl, 'POST', '/api/v1/leads/import', { headers: { 'X-API-Key': json.key }, body: { leads } });
  }
  return { email, key: json.key, user };
}

async function run(options, seconds) {
  const result = await autocannon({ ...options, duration: seconds });
  assertAllAnswered(`${options.method ?? 'GET'} ${options.url}`, result);
  return result;
}

/**
 * Runs the section against a started service (`pid` its process) and returns its figures:
 * logins { connections, rps, p50, p99, rssBeforeMb, peakRssMb }, and leads { keyCpuUs, sessionCpuUs, ratio, rounds }.
 */
export async function measureAccounts({ baseUrl, dbUrl, pid, quick, log }) {
  const seconds = quick ? 4 : 10;
  const { email, key, user } = await seed(baseUrl, dbUrl);
  log(`accounts: seeded a Pro tenant with ${LEADS.toLocaleString('en')} leads, a user and a key`);

  const rssBeforeMb = rssMb(pid);
  const login = {
    url: `${baseUrl}/auth/v1/sessions`,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https', Origin: ACCOUNTS_ORIGIN },
    body: JSON.stringify({ email, password: PASSWORD }),
    connections: 20,
  };
  await run(login, 2);
  const logins = await run(login, seconds);
  const loginFigures = {
    connections: 20,
    rps: Math.round(logins.requests.average),
    p50: logins.latency.p50,
    p99: logins.latency.p99,
    rssBeforeMb,
    peakRssMb: peakRssMb(pid),
  };
  log(
    `accounts: log-in at 20 connections ${loginFigures.rps} req/s, p50 ${loginFigures.p50} ms, p99 ${loginFigures.p99} ms, RSS ${rssBeforeMb} MB before, peak ${loginFigures.peakRssMb} MB`,
  );

  const leads = (headers) => ({ url: `${baseUrl}/api/v1/leads`, headers: { 'X-Forwarded-Proto': 'https', ...headers }, connections: 50 });
  const variants = { key: leads({ 'X-API-Key': key }), session: leads(user) };
  const cpu = { key: [], session: [] };
  const rps = { key: [], session: [] };
  const rounds = quick ? 2 : 4;
  for (const options of Object.values(variants)) await run(options, 2);
  for (let round = 0; round < rounds; round++) {
    for (const [name, options] of Object.entries(variants)) {
      const before = cpuSeconds(pid);
      const result = await run(options, quick ? 3 : 5);
      cpu[name].push(Math.round(((cpuSeconds(pid) - before) * 1e6) / result.requests.total));
      rps[name].push(Math.round(result.requests.average));
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const leadFigures = {
    rounds,
    keyCpuUs: median(cpu.key),
    sessionCpuUs: median(cpu.session),
    keyRps: median(rps.key),
    sessionRps: median(rps.session),
    runs: { cpu, rps },
  };
  leadFigures.ratio = +(leadFigures.sessionCpuUs / leadFigures.keyCpuUs).toFixed(3);
  log(`accounts: GET /api/v1/leads CPU per request: key ${leadFigures.keyCpuUs} µs, session ${leadFigures.sessionCpuUs} µs (x${leadFigures.ratio})`);
  return { logins: loginFigures, leads: leadFigures };
}

export function accountsMarkdown(figures) {
  const { logins, leads } = figures;
  return [
    '## Accounts: log-in and the session path',
    '',
    'Log-in (`POST /auth/v1/sessions`, the right password, argon2id m=19 MiB t=2 p=1, at most 2 hashes at once) at 20 connections:',
    '',
    '| req/s | p50 | p99 | RSS before | peak RSS |',
    '|---|---|---|---|---|',
    `| ${logins.rps} | ${logins.p50} ms | ${logins.p99} ms | ${logins.rssBeforeMb} MB | ${logins.peakRssMb} MB |`,
    '',
    `\`GET /api/v1/leads\` (first page of ${LEADS.toLocaleString('en')} leads) at 50 connections, key and session alternating, ${leads.rounds} rounds, medians:`,
    '',
    '| caller | req/s | CPU µs/request |',
    '|---|---|---|',
    `| key (X-API-Key) | ${leads.keyRps} | ${leads.keyCpuUs} |`,
    `| user (session cookie + X-Tenant-Id) | ${leads.sessionRps} | ${leads.sessionCpuUs} |`,
    '',
    `Session against key: x${leads.ratio} CPU per request (target: at most x1.10).`,
    '',
  ].join('\n');
}
