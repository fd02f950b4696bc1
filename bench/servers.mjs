// What bench/run.mjs and bench/compare.mjs share: starting and stopping the servers under test,
// the service's benchmark environment, and the autocannon requests they send.
import { execFileSync, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_PEPPER } from './seed.mjs';

export const BENCH_WIDGET_SECRET = 'bench-widget-token-secret-0123456789abcdef';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The NODE_OPTIONS a Dockerfile sets (ENV NODE_OPTIONS=...): the service runs as its image runs it. */
export function imageNodeOptions(dockerfile) {
  return /^ENV NODE_OPTIONS="?([^"\n]*)"?$/m.exec(dockerfile)?.[1] ?? '';
}

/** The service's environment in a benchmark, on `databaseUrl` and `port`. */
export function serviceEnv(databaseUrl, port, nodeOptions) {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    API_KEY_PEPPER: BENCH_PEPPER,
    TRUST_PROXY: 'loopback',
    LOG_LEVEL: 'info',
    // The benchmark drives one tenant far past its plan: the limiter runs but never refuses.
    RATE_LIMIT_MULTIPLIER: '100000',
    SHUTDOWN_DRAIN_MS: '0',
    // The webhooks section's receiver listens on loopback, which the service otherwise refuses.
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    // Visitor tokens: the baseline signs and checks them with the same secret.
    WIDGET_TOKEN_SECRET: BENCH_WIDGET_SECRET,
    // Required in production: the origin of mailed links and of signed-in browsers (bench/accounts.mjs).
    PUBLIC_URL: 'https://bench.local',
    PORT: String(port),
    NODE_OPTIONS: nodeOptions,
  };
}

/** The bare baseline's environment: it maps keys to tenants in memory (`keyToTenant`: { key: tenantId }). */
export function baselineEnv(databaseUrl, port, keyToTenant) {
  return { DATABASE_URL: databaseUrl, PORT: String(port), BENCH_KEYS: JSON.stringify(keyToTenant), WIDGET_TOKEN_SECRET: BENCH_WIDGET_SECRET };
}

/**
 * The peer's (bench/peer/main.cjs) environment: the seed's pepper, so the keys hash to the stored
 * digests, and Node's default flags, as a user would run it (the service runs with its image's).
 */
export function peerEnv(databaseUrl, port) {
  return { DATABASE_URL: databaseUrl, API_KEY_PEPPER: BENCH_PEPPER, PORT: String(port), NODE_OPTIONS: '' };
}

const CLOCK_TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/**
 * CPU time (user + system, all threads) process `pid` has used so far, in seconds, from
 * /proc/<pid>/stat: utime and stime, in clock ticks, are its 14th and 15th fields, counted from
 * after the command name (in parentheses, possibly with spaces).
 */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

const children = new Set();
// However the run ends, no server is left behind holding its port.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts a server; if it exits before stopServer, the run stops: its figures would be meaningless. */
export function startServer(name, command, args, { cwd, env, log }) {
  // BENCH_SERVER_LOGS=<dir>: each server's log lines in <dir>/<name>.log (else dropped: writing them would cost the run).
  const logs = process.env.BENCH_SERVER_LOGS ? openSync(path.join(process.env.BENCH_SERVER_LOGS, `${name.replace(/[^\w.-]+/g, '_')}.log`), 'a') : 'ignore';
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', logs, 'inherit'] });
  children.add(child);
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (child.stopping) return;
    log(`${name} exited unexpectedly (${code ?? signal}): stopping the run`);
    process.exit(1);
  });
  return child;
}

export async function stopServer(child) {
  child.stopping = true;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

export async function waitForHttp(url) {
  for (let i = 0; i < 200; i++) {
    try {
      const response = await fetch(url, { headers: { 'X-Forwarded-Proto': 'https' } });
      if (response.status < 500) return;
    } catch {}
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

export function peakRssMb(pid) {
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
}

/** autocannon's options for a scenario ({ path, method?, body?, key }), as a client behind the TLS proxy sends it. */
export function loadOptions(baseUrl, scenario, connections) {
  return {
    url: baseUrl + scenario.path,
    method: scenario.method ?? 'GET',
    headers: { 'X-API-Key': scenario.key, 'X-Forwarded-Proto': 'https', ...(scenario.body ? { 'Content-Type': 'application/json' } : {}), ...scenario.headers },
    body: scenario.body ? JSON.stringify(scenario.body) : undefined,
    // A scenario's own touch to every request (a fresh Idempotency-Key, say), on top of the above.
    ...(scenario.setupRequest ? { requests: [{ setupRequest: scenario.setupRequest }] } : {}),
    connections,
  };
}

/** Throws unless every request of an autocannon run was answered 2xx. */
export function assertAllAnswered(label, result) {
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad)
    throw new Error(
      `${label}: ${result.non2xx} non-2xx answers (status: ${JSON.stringify(Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])))}), ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}: the figures would be meaningless`,
    );
}
