// What bench/run.mjs and bench/compare.mjs share: starting and stopping the servers under test,
// the service's benchmark environment, and the autocannon requests they send.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
    NODE_ENV: 'production', DATABASE_URL: databaseUrl, API_KEY_PEPPER: BENCH_PEPPER, TRUST_PROXY: 'loopback', LOG_LEVEL: 'info',
    // The benchmark drives one tenant far past its plan: the limiter runs but never refuses.
    RATE_LIMIT_MULTIPLIER: '100000', SHUTDOWN_DRAIN_MS: '0',
    // The webhooks section's receiver listens on loopback, which the service otherwise refuses.
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    // Visitor tokens: the baseline signs and checks them with the same secret.
    WIDGET_TOKEN_SECRET: BENCH_WIDGET_SECRET,
    PORT: String(port), NODE_OPTIONS: nodeOptions,
  };
}

const children = new Set();
// However the run ends, no server is left behind holding its port.
process.on('exit', () => { for (const child of children) child.kill('SIGKILL'); });

/** Starts a server; if it exits before stopServer, the run stops: its figures would be meaningless. */
export function startServer(name, command, args, { cwd, env, log }) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
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
    connections,
  };
}

/** Throws unless every request of an autocannon run was answered 2xx. */
export function assertAllAnswered(label, result) {
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}: the figures would be meaningless`);
}
