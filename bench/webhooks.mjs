// The webhooks section of the benchmark (bench/run.mjs): what the outbox costs lead creation, how
// long a committed lead takes to reach its endpoint when the service is idle, and whether delivery
// keeps up with creation. The endpoint is a receiver in this process on 127.0.0.1 answering 204 at
// once (the service runs with WEBHOOK_ALLOWED_CIDRS=127.0.0.1/32); each measurement gets an
// endpoint (and a receiver path) of its own, deleted afterwards with its pending deliveries.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';
import { withDatabase } from './seed.mjs';
import { assertAllAnswered, loadOptions, sleep } from './servers.mjs';

// The create-lead scenario of run.mjs.
const LEAD = { name: 'Bench Lead', email: 'bench@example.com', company: 'Acme Corp', tags: ['bench'] };
const TARGET_COST_PCT = 10;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/**
 * Runs the section on the service at `baseUrl` with `key` (leads:write and webhooks:manage);
 * `measure(baseUrl, scenario)` is run.mjs's autocannon measurement.
 */
export async function measureWebhooks({ baseUrl, dbUrl, key, measure, quick, log, connections }) {
  const receiver = await startReceiver();
  const api = apiClient(baseUrl, key);
  try {
    const cost = await outboxCost({ baseUrl, key, api, receiver, measure, pairs: quick ? 2 : 3, log });
    const latency = await idleLatency({ api, receiver, dbUrl, events: 1000, perSecond: 50, log });
    const throughput = await deliveryThroughput({ baseUrl, key, api, receiver, dbUrl, leads: 2000, connections, log });
    return { connections, cost, latency, throughput };
  } finally {
    receiver.server.close();
  }
}

/** 1. Lead creation with no endpoint against one subscribed endpoint, in alternating rounds. */
async function outboxCost({ baseUrl, key, api, receiver, measure, pairs, log }) {
  const scenario = { name: 'create lead', path: '/api/v1/leads', method: 'POST', key, body: LEAD };
  const rounds = { none: [], one: [] };
  for (let i = 0; i < pairs; i++) {
    rounds.none.push(await measure(baseUrl, scenario));
    const endpoint = await createEndpoint(api, receiver, `/cost-${i}`);
    try {
      rounds.one.push(await measure(baseUrl, scenario));
    } finally {
      await api('DELETE', `/api/v1/webhooks/${endpoint}`, undefined, 204);
    }
    log(
      `webhooks, create lead round ${i + 1}: no endpoint ${rounds.none[i].rps} req/s, one endpoint ${rounds.one[i].rps} req/s (${receiver.received(`/cost-${i}`).length} delivered meanwhile)`,
    );
  }
  const summary = (runs) => ({
    rps: Math.round(median(runs.map((r) => r.rps))),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    rounds: runs.map((r) => r.rps),
  });
  const none = summary(rounds.none);
  const one = summary(rounds.one);
  return { none, one, costPct: +((1 - one.rps / none.rps) * 100).toFixed(1) };
}

/** 2. Commit-to-receipt latency of paced lead creations, and exactly-once delivery. */
async function idleLatency({ api, receiver, dbUrl, events, perSecond, log }) {
  const route = '/latency';
  const endpoint = await createEndpoint(api, receiver, route);
  try {
    const started = performance.now();
    const creations = [];
    for (let i = 0; i < events; i++) {
      const wait = started + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await sleep(wait);
      // Not awaited: a slow answer does not hold back the next creation (a few may overlap).
      creations.push(api('POST', '/api/v1/leads', { ...LEAD, email: `latency${i}@example.com` }, 201).then((body) => body.lead.id));
    }
    const leadIds = await Promise.all(creations);
    const got = await waitForDeliveries(receiver, route, events);
    const latencies = got.map((d) => d.latencyMs).sort((a, b) => a - b);
    const result = {
      events,
      perSecond,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
      ...exactlyOnce(got, leadIds),
      attempts: await attemptsOf(dbUrl, endpoint),
    };
    log(
      `webhooks, idle latency of ${events} events at ${perSecond}/s: p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms; ${result.received} received, ${result.duplicates} duplicates, ${result.missing} missing`,
    );
    return result;
  } finally {
    await api('DELETE', `/api/v1/webhooks/${endpoint}`, undefined, 204);
  }
}

/** 3. Leads created as fast as autocannon can, and the time until the last one's webhook arrived. */
async function deliveryThroughput({ baseUrl, key, api, receiver, dbUrl, leads, connections, log }) {
  const route = '/throughput';
  const endpoint = await createEndpoint(api, receiver, route);
  try {
    const options = loadOptions(baseUrl, { path: '/api/v1/leads', method: 'POST', key, body: LEAD }, connections);
    const started = Date.now();
    const result = await autocannon({ ...options, amount: leads });
    const created = Date.now();
    assertAllAnswered(`${options.method} ${options.url}`, result);
    const got = await waitForDeliveries(receiver, route, leads);
    const last = Math.max(...got.map((d) => d.receivedAt));
    const createRps = Math.round(leads / ((created - started) / 1000));
    const deliveryRps = Math.round(got.length ? new Set(got.map((d) => d.id)).size / ((last - started) / 1000) : 0);
    const summary = {
      leads,
      createSeconds: +((created - started) / 1000).toFixed(1),
      createRps,
      lastReceiptSeconds: +((last - started) / 1000).toFixed(1),
      deliveryRps,
      ratio: +(deliveryRps / createRps).toFixed(2),
      ...exactlyOnce(got),
      attempts: await attemptsOf(dbUrl, endpoint),
    };
    log(
      `webhooks, ${leads} leads: created in ${summary.createSeconds} s (${createRps}/s), last webhook after ${summary.lastReceiptSeconds} s (${deliveryRps}/s, ${summary.ratio} of creation); ${summary.duplicates} duplicates, ${summary.missing} missing`,
    );
    return summary;
  } finally {
    await api('DELETE', `/api/v1/webhooks/${endpoint}`, undefined, 204);
  }
}

/** Counts by payload id: duplicates, and (by the leads' ids when known) missing or foreign events. */
function exactlyOnce(got, leadIds) {
  const ids = new Set(got.map((d) => d.id));
  const result = { received: got.length, duplicates: got.length - ids.size, badSignatures: got.filter((d) => !d.signed).length };
  if (!leadIds) return { ...result, missing: Math.max(0, got.expected - ids.size) };
  const delivered = new Set(got.map((d) => d.leadId));
  const created = new Set(leadIds);
  return { ...result, missing: leadIds.filter((id) => !delivered.has(id)).length, unexpected: [...delivered].filter((id) => !created.has(id)).length };
}

/** The endpoint's deliveries in the database by status and attempts, e.g. { "succeeded/1": 1000 }. */
function attemptsOf(dbUrl, endpointId) {
  return withDatabase(dbUrl, async (db) => {
    const { rows } = await db.query(`SELECT status, attempts, count(*)::int AS n FROM "WebhookDelivery" WHERE "endpointId" = $1 GROUP BY 1, 2 ORDER BY 1, 2`, [
      endpointId,
    ]);
    return Object.fromEntries(rows.map((r) => [`${r.status}/${r.attempts}`, r.n]));
  });
}

/**
 * Waits until `expected` distinct events reached `route`, or none arrived for 30 s (a failed attempt
 * is retried after 5 s); then 2 s more (four poll intervals), for duplicates to show.
 */
async function waitForDeliveries(receiver, route, expected) {
  const distinct = () => new Set(receiver.received(route).map((d) => d.id)).size;
  let count = distinct();
  let progressAt = Date.now();
  while (count < expected && Date.now() - progressAt < 30_000) {
    await sleep(50);
    if (distinct() > count) [count, progressAt] = [distinct(), Date.now()];
  }
  await sleep(2000);
  return Object.assign([...receiver.received(route)], { expected });
}

function apiClient(baseUrl, key) {
  return async (method, path, body, expectedStatus) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { 'X-API-Key': key, 'X-Forwarded-Proto': 'https', ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (response.status !== expectedStatus) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
}

/** Subscribes the receiver's `route` to lead.created; returns the endpoint's id. */
async function createEndpoint(api, receiver, route) {
  const { webhook, secret } = await api('POST', '/api/v1/webhooks', { url: receiver.url + route, events: ['lead.created'] }, 201);
  receiver.secrets.set(route, secret);
  return webhook.id;
}

/** Records every delivery by path: payload id, lead id, receipt time, latency from the lead's createdAt, signature check. */
async function startReceiver() {
  const byRoute = new Map();
  const secrets = new Map();
  const received = (route) => byRoute.get(route) ?? byRoute.set(route, []).get(route);
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = Date.now();
      res.writeHead(204).end();
      const raw = Buffer.concat(chunks).toString('utf8');
      const event = JSON.parse(raw);
      received(req.url).push({
        id: event.id,
        leadId: event.data.object.id,
        receivedAt,
        latencyMs: receivedAt - Date.parse(event.data.object.createdAt),
        signed: verifySignature(secrets.get(req.url), req.headers, raw),
      });
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, secrets, received, url: `http://127.0.0.1:${server.address().port}` };
}

/** Standard Webhooks signature check, as docs/webhooks.md shows a receiver doing it. */
function verifySignature(secret, headers, raw) {
  if (!secret) return false;
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${raw}`)
    .digest();
  return (headers['webhook-signature'] ?? '').split(' ').some((sig) => {
    const given = Buffer.from(sig.slice(3), 'base64');
    return sig.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** The section in results.md: a table of the figures and a line per target. */
export function webhooksMarkdown(w) {
  const { cost, latency: l, throughput: t } = w;
  const met = (ok) => (ok ? 'met' : 'missed');
  const once = (x) =>
    `${x.received} received, ${x.duplicates} duplicates, ${x.missing} missing,${x.unexpected ? ` ${x.unexpected} unexpected,` : ''} ${x.badSignatures} bad signatures; deliveries in the database (status/attempts): ${
      Object.entries(x.attempts)
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ') || 'none'
    }`;
  return [
    `## Webhooks (one endpoint, a local receiver answering 204 at once; one service instance delivering)`,
    ``,
    `| figure | value |`,
    `|---|---|`,
    `| create lead, no endpoint (median of ${cost.none.rounds.length} rounds: ${cost.none.rounds.join(', ')}) | ${cost.none.rps} req/s, p50 ${cost.none.p50} ms, p99 ${cost.none.p99} ms |`,
    `| create lead, one subscribed endpoint (median of ${cost.one.rounds.length} rounds, alternating with the above: ${cost.one.rounds.join(', ')}) | ${cost.one.rps} req/s, p50 ${cost.one.p50} ms, p99 ${cost.one.p99} ms |`,
    `| cost of the outbox on lead creation | ${cost.costPct}% |`,
    `| commit to receipt, ${l.events.toLocaleString('en')} leads at ${l.perSecond}/s, idle | p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms |`,
    `| exactly once (${l.events.toLocaleString('en')} events) | ${once(l)} |`,
    `| ${t.leads.toLocaleString('en')} leads created at once (autocannon, ${w.connections} connections) | ${t.createRps} req/s (${t.createSeconds} s) |`,
    `| delivery of those ${t.leads.toLocaleString('en')}: first creation to last receipt | ${t.lastReceiptSeconds} s, ${t.deliveryRps} events/s, ${t.ratio} of the creation rate |`,
    `| exactly once (${t.leads.toLocaleString('en')} events) | ${once(t)} |`,
    ``,
    `- Target: the outbox costs under ${TARGET_COST_PCT}% of create throughput: ${met(cost.costPct < TARGET_COST_PCT)} (${cost.costPct}%).`,
    `- Target: every event arrives exactly once: ${met(!l.duplicates && !l.missing && !t.duplicates && !t.missing)} (${l.duplicates + t.duplicates} duplicates, ${l.missing + t.missing} missing).`,
    `- Target: delivery throughput at least the create throughput: ${met(t.ratio >= 1)} (${t.deliveryRps} against ${t.createRps} per second).`,
    ``,
  ].join('\n');
}
