// Steady-rate latency, open loop: requests evenly spaced at a fixed rate whatever the server
// does, each one's latency counted from the instant it was due, not from when it was sent. A
// closed-loop tool (autocannon, whose --overallRate also sends in bursts per tick) waits for
// answers before sending more, so a stall delays the requests behind it unmeasured (coordinated
// omission); here a 200 ms stall at 200 requests/s shows as 40 late requests.
//   node bench/open-loop.mjs <url> [--rate 200] [--seconds 10] [--key svc_sk_...] [--post '{"json":1}']
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** A request not answered within this is an error (and its latency is not counted). */
const TIMEOUT_MS = 10_000;

/**
 * Sends `rate` requests a second for `seconds` after `warmupSeconds` at the same rate (not
 * counted: connections are opened then), on keep-alive connections, as many as the load needs
 * (no cap: a capped pool would queue requests, closing the loop again). Returns milliseconds.
 * `stop`: a function asked at each send; true ends the run early (after the warm-up). `samples`:
 * also return every answered request as [due, latency] (due on performance.now()'s clock), for
 * the latency within a window of the run (bench/privacy.mjs: while a sweep runs).
 */
export async function openLoop({ url, method = 'GET', headers = {}, body, rate = 200, seconds = 10, warmupSeconds = 1, stop, samples = false }) {
  const agent = new http.Agent({ keepAlive: true });
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const options = { method, agent, headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}) } };
  try {
    if (warmupSeconds > 0) await schedule(url, options, payload, rate, warmupSeconds * rate);
    const run = await schedule(url, options, payload, rate, seconds * rate, stop);
    const figures = {
      rate,
      seconds: run.sent / rate,
      requests: run.sent,
      ...percentiles(run.latencies),
      errors: run.errors,
      maxSendLagMs: round(run.maxSendLagMs),
    };
    return samples ? { ...figures, samples: run.samples } : figures;
  } finally {
    agent.destroy();
  }
}

/** p50, p99 and max of latencies in milliseconds (null when there are none). */
export function percentiles(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p) => (sorted.length ? round(sorted[Math.ceil((p / 100) * sorted.length) - 1]) : null);
  return { p50: at(50), p99: at(99), max: at(100) };
}

/** Request i is due at start + i / rate; a timer wakes at each due time and sends all that are due. */
function schedule(url, options, payload, rate, count, stop) {
  const interval = 1000 / rate;
  const start = performance.now() + 10;
  const latencies = [];
  const samples = [];
  const pending = [];
  let errors = 0;
  let maxSendLagMs = 0;
  let next = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      if (stop?.()) count = next;
      for (; next < count && start + next * interval <= now; next++) {
        const due = start + next * interval;
        // How late the generator itself was: if this grows, the machine, not the server, is slow.
        maxSendLagMs = Math.max(maxSendLagMs, now - due);
        pending.push(
          send(url, options, payload).then((ok) => {
            if (!ok) return errors++;
            latencies.push(performance.now() - due);
            samples.push([due, performance.now() - due]);
          }),
        );
      }
      if (next < count) setTimeout(tick, Math.max(0, start + next * interval - performance.now()));
      else Promise.all(pending).then(() => resolve({ latencies, samples, errors, maxSendLagMs, sent: next }));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
}

/** One request; true when it was answered 2xx within TIMEOUT_MS (the body read to its end). */
function send(url, options, payload) {
  return new Promise((resolve) => {
    const request = http.request(url, options, (response) => {
      response.on('data', () => {});
      response.on('end', () => resolve(response.statusCode >= 200 && response.statusCode < 300));
      response.on('error', () => resolve(false));
    });
    request.setTimeout(TIMEOUT_MS, () => request.destroy(new Error('timeout')));
    request.on('error', () => resolve(false));
    request.end(payload);
  });
}

const round = (ms) => Math.round(ms * 10) / 10;

/**
 * The steady-rate scenarios on the service and the baseline in turns (service, baseline, service,
 * baseline), so that drift of the shared machine falls on both; the second round is reported
 * (the first also warms both up: JIT, pools, caches), both are kept. `servers`: { name: baseUrl }.
 */
export async function measureSteady({ servers, scenarios, seconds, log, rate = 200, rounds = 2 }) {
  const rows = [];
  for (const scenario of scenarios) {
    // A scenario may set its own rate: a widget message costs a search over 10,000 passages.
    const scenarioRate = scenario.rate ?? rate;
    const row = { scenario: scenario.name, rate: scenarioRate, seconds, rounds: Object.fromEntries(Object.keys(servers).map((name) => [name, []])) };
    for (let round = 0; round < rounds; round++) {
      for (const [name, baseUrl] of Object.entries(servers)) {
        const headers = { 'X-API-Key': scenario.key, 'X-Forwarded-Proto': 'https', ...scenario.headers };
        row.rounds[name].push(
          await openLoop({ url: baseUrl + scenario.path, method: scenario.method, headers, body: scenario.body, rate: scenarioRate, seconds }),
        );
      }
    }
    for (const name of Object.keys(servers)) row[name] = row.rounds[name].at(-1);
    row.p99Ratio = row.service.p99 && row.baseline.p99 ? +(row.service.p99 / row.baseline.p99).toFixed(1) : null;
    const figures = (x) => `p50 ${x.p50} p99 ${x.p99} max ${x.max} ms${x.errors ? `, ${x.errors} errors` : ''}`;
    log(`steady ${scenarioRate}/s, ${scenario.name}: service ${figures(row.service)} | baseline ${figures(row.baseline)} | p99 ratio ${row.p99Ratio}`);
    rows.push(row);
  }
  return rows;
}

export function steadyMarkdown(rows) {
  if (!rows?.length) return '';
  const cell = (x) => `${x.p50} / ${x.p99} / ${x.max}${x.errors ? ` (${x.errors} errors)` : ''}`;
  return [
    `## Steady ${rows[0].rate} req/s (open loop: latency from when each request was due)`,
    ``,
    ...(rows.some((x) => x.rate !== rows[0].rate) ? [`At ${rows[0].rate} req/s unless the scenario names its rate.`] : []),
    ``,
    `bench/open-loop.mjs, ${rows[0].seconds} s per measurement after 1 s of warm-up, keep-alive connections opened as needed; service and baseline in turns, twice; the second round shown (bench JSON: both, and how late the generator itself sent).`,
    ``,
    `| scenario | service p50 / p99 / max ms | baseline p50 / p99 / max ms | p99 ratio (service/baseline) |`,
    `|---|---|---|---|`,
    ...rows.map(
      (x) => `| ${x.scenario}${x.rate !== rows[0].rate ? ` (${x.rate} req/s)` : ''} | ${cell(x.service)} | ${cell(x.baseline)} | ${x.p99Ratio ?? '–'} |`,
    ),
    ``,
  ].join('\n');
}

// As a command: one open-loop run against a URL.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
  const body = option('post');
  const result = await openLoop({
    url: args[0],
    method: body ? 'POST' : 'GET',
    headers: option('key') ? { 'X-API-Key': option('key'), 'X-Forwarded-Proto': 'https' } : {},
    body,
    rate: Number(option('rate', 200)),
    seconds: Number(option('seconds', 10)),
  });
  console.log(JSON.stringify(result));
}
