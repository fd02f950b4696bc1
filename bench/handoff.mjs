// The handoff section of npm run bench (issue 25): how long an agent's message takes to reach the
// visitor's live stream (POST /api/v1/conversations/:id/messages on instance A, the widget's SSE
// stream GET /api/v1/widget/conversations/:id/events open on instance B, both on one PostgreSQL
// and one Redis; then both on A), and how many idle streams one instance holds, with the memory
// each costs (RSS before and after opening them, one stream per visitor).
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/run.mjs --only=handoff [--quick]
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createBenchKey, withDatabase } from './seed.mjs';
import { insertPublicKey, openConversation } from './widget.mjs';
import { percentiles } from './open-loop.mjs';
import { sleep } from './servers.mjs';

/** This section's tenant (bench_tenant idx): no other section writes to it. */
const HANDOFF_TENANT = 7;
/** Idle streams opened on one instance, one per visitor (2 per visitor at most). */
const IDLE_STREAMS = 1_000;

/**
 * Each stream comes from an address of its own (X-Forwarded-For; the bench servers trust loopback):
 * an instance holds at most 10 streams per client address, and this measures many visitors'.
 */
let streamsOpened = 0;
const nextClientAddress = () => {
  const n = streamsOpened++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

async function seed(dbUrl) {
  const key = await createBenchKey(dbUrl, HANDOFF_TENANT, ['conversations:read', 'conversations:write'], 'bench handoff');
  return withDatabase(dbUrl, async (db) => {
    const {
      rows: [{ tenant, bot }],
    } = await db.query(
      `SELECT t.id::text AS tenant, b.id::text AS bot FROM bench_tenant t JOIN bench_bot b ON b.tenant_idx = t.idx AND b.idx = 0 WHERE t.idx = $1`,
      [HANDOFF_TENANT],
    );
    const publicKey = await insertPublicKey(db, tenant, 'bench handoff widget');
    await db.query(`UPDATE "Bot" SET "isActive" = true, "handoffEnabled" = true WHERE id = $1`, [bot]);
    return { key, publicKey, botId: bot };
  });
}

/**
 * Opens the visitor's event stream on `baseUrl`; resolves once the first `conversation` event has
 * arrived, with { onMessage(listener), close() }. Every `message` event goes to the listener.
 */
function openStream(baseUrl, publicKey, visitor, agent) {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${baseUrl}/api/v1/widget/conversations/${visitor.conversationId}/events`,
      {
        agent,
        headers: {
          Accept: 'text/event-stream',
          'X-API-Key': publicKey,
          'X-Visitor-Token': visitor.token,
          'X-Forwarded-Proto': 'https',
          'X-Forwarded-For': nextClientAddress(),
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return reject(new Error(`events answered ${response.statusCode}`));
        }
        response.setEncoding('utf8');
        let buffer = '';
        let listener = () => {};
        let connected = false;
        response.on('data', (chunk) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event === 'conversation' && !connected) {
              connected = true;
              resolve({ onMessage: (fn) => (listener = fn), close: () => request.destroy() });
            } else if (event === 'message') listener(JSON.parse(data));
          }
        });
      },
    );
    request.on('error', reject);
  });
}

/**
 * `count` agent messages posted one at a time on `postUrl`, each awaited on the visitor's stream
 * open on `streamUrl`: the time from sending the POST to the event's arrival.
 */
async function measureLatency({ postUrl, streamUrl, seeded, count }) {
  const visitor = await openConversation(streamUrl, seeded);
  const agent = new http.Agent({ keepAlive: true });
  const stream = await openStream(streamUrl, seeded.publicKey, visitor, agent);
  const arrived = new Map();
  stream.onMessage((message) => arrived.get(message.content)?.(performance.now()));
  const latencies = [];
  const postLatencies = [];
  try {
    for (let i = 0; i < count; i++) {
      const content = `Agent reply ${i}`;
      const received = new Promise((resolve, reject) => {
        arrived.set(content, resolve);
        setTimeout(() => reject(new Error(`${content} did not reach the stream within 5 s`)), 5_000).unref();
      });
      const sent = performance.now();
      const response = await fetch(`${postUrl}/api/v1/conversations/${visitor.conversationId}/messages`, {
        method: 'POST',
        headers: { 'X-API-Key': seeded.key, 'X-Forwarded-Proto': 'https', 'Content-Type': 'application/json' },
        body: JSON.stringify({ content, authorName: 'Bench Agent' }),
      });
      const answered = performance.now();
      if (response.status !== 201) throw new Error(`agent message answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      const at = await received;
      arrived.delete(content);
      latencies.push(at - sent);
      postLatencies.push(answered - sent);
      await sleep(5);
    }
  } finally {
    stream.close();
    agent.destroy();
  }
  return { messages: count, ...percentiles(latencies), post: percentiles(postLatencies) };
}

/** IDLE_STREAMS visitors, each with one stream open on the instance `pid` serves at `baseUrl`; RSS before and after. */
async function measureIdleStreams({ baseUrl, pid, seeded, log }) {
  const visitors = [];
  for (let i = 0; i < IDLE_STREAMS; i += 20) visitors.push(...(await Promise.all(Array.from({ length: 20 }, () => openConversation(baseUrl, seeded)))));
  await sleep(2_000);
  const rssBefore = rssMb(pid);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const streams = [];
  const started = performance.now();
  for (let i = 0; i < visitors.length; i += 50)
    streams.push(...(await Promise.all(visitors.slice(i, i + 50).map((visitor) => openStream(baseUrl, seeded.publicKey, visitor, agent)))));
  const openingMs = performance.now() - started;
  await sleep(5_000);
  const rssAfter = rssMb(pid);
  // Still answering with all of them open: one verify-like request.
  const probeStart = performance.now();
  const probe = await fetch(`${baseUrl}/health/ready`, { headers: { 'X-Forwarded-Proto': 'https' } });
  const probeMs = performance.now() - probeStart;
  for (const stream of streams) stream.close();
  agent.destroy();
  const figures = {
    streams: streams.length,
    openingSeconds: +(openingMs / 1000).toFixed(1),
    rssBeforeMb: Math.round(rssBefore),
    rssAfterMb: Math.round(rssAfter),
    kbPerStream: Math.round(((rssAfter - rssBefore) * 1024) / streams.length),
    readyAnsweredMs: Math.round(probeMs),
    readyStatus: probe.status,
  };
  log(
    `handoff: ${figures.streams} idle streams open on one instance in ${figures.openingSeconds} s; RSS ${figures.rssBeforeMb} -> ${figures.rssAfterMb} MB, ${figures.kbPerStream} KB per stream`,
  );
  return figures;
}

/** Runs the section on two started instances (`urls`, `pids`) sharing `dbUrl` and Redis. */
export async function measureHandoff({ urls, pids, dbUrl, redisUrl, quick, log }) {
  const seeded = await seed(dbUrl);
  const count = quick ? 200 : 500;
  // A first, unmeasured round warms both instances up (JIT, pools, the key cache).
  await measureLatency({ postUrl: urls[0], streamUrl: urls[1], seeded, count: 30 });
  const acrossInstances = await measureLatency({ postUrl: urls[0], streamUrl: urls[1], seeded, count });
  log(`handoff: agent message on A -> stream on B: p50 ${acrossInstances.p50} p99 ${acrossInstances.p99} max ${acrossInstances.max} ms (${count} messages)`);
  const oneInstance = await measureLatency({ postUrl: urls[0], streamUrl: urls[0], seeded, count });
  log(`handoff: agent message on A -> stream on A: p50 ${oneInstance.p50} p99 ${oneInstance.p99} max ${oneInstance.max} ms`);
  const idle = await measureIdleStreams({ baseUrl: urls[1], pid: pids[1], seeded, log });
  return { redis: new URL(redisUrl).host, acrossInstances, oneInstance, idle };
}

export function handoffMarkdown({ acrossInstances, oneInstance, idle }) {
  const row = (name, x) => `| ${name} | ${x.messages} | ${x.p50} | ${x.p99} | ${x.max} | ${x.post.p50} / ${x.post.p99} |`;
  return [
    '## Human handoff: agent message to the visitor stream',
    '',
    "An agent message (`POST /api/v1/conversations/:id/messages`, a key with conversations:write) awaited on the visitor's server-sent event stream (`GET /api/v1/widget/conversations/:id/events`), one message at a time: from sending the POST to the `message` event's arrival. Two instances share PostgreSQL and Redis (pub/sub carries the event to the other instance).",
    '',
    "| path | messages | p50 ms | p99 ms | max ms | the POST's own answer, p50 / p99 ms |",
    '|---|---|---|---|---|---|',
    row('posted on instance A, stream on instance B (Redis pub/sub)', acrossInstances),
    row('posted and streamed on one instance', oneInstance),
    '',
    `Idle streams on one instance: ${idle.streams.toLocaleString('en')} visitors with one stream each, opened ${50} at a time in ${idle.openingSeconds} s, all held (a heartbeat every 25 s); RSS ${idle.rssBeforeMb} MB before, ${idle.rssAfterMb} MB after: ${idle.kbPerStream} KB per stream. With them open, \`/health/ready\` answered ${idle.readyStatus} in ${idle.readyAnsweredMs} ms.`,
    '',
  ].join('\n');
}
