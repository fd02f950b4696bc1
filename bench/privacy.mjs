// The privacy section of npm run bench (issue 26): erasing a person with 1,000 messages, from the
// request to done as a client sees it (POST /api/v1/privacy/erasures, then its status polled), and
// the retention sweep of 100,000 expired rows, its time and the p99 of lead creation at a steady
// rate running alongside, against the p99 of the same load without the sweep, in the same run.
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres node bench/run.mjs --only=privacy [--quick]
import { performance } from 'node:perf_hooks';
import { createBenchKey, refreshLeadCounters, withDatabase } from './seed.mjs';
import { openLoop, percentiles } from './open-loop.mjs';
import { sleep } from './servers.mjs';

/** The tenants of this section (bench_tenant idx): no other section writes to them. */
const ERASURE_TENANT = 5;
const SWEEP_TENANT = 6;
const MESSAGES_PER_PERSON = 1_000;
const CONVERSATIONS_PER_PERSON = 10;
/** The expired rows: leads, and conversations with their messages (50,000 + 5,000 + 45,000). */
const EXPIRED = { leads: 50_000, conversations: 5_000, messagesPerConversation: 9 };
/** Lead creation alongside the sweep, requests a second (open loop): a rate the service keeps up with on 2 shared cores (at 200 a second, with other test runs on the machine, it fell behind even without a sweep). */
const RATE = 50;

const headers = (key) => ({ 'X-API-Key': key, 'X-Forwarded-Proto': 'https', 'Content-Type': 'application/json' });

async function call(baseUrl, key, method, path, body) {
  const response = await fetch(baseUrl + path, { method, headers: headers(key), body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (ms) => Math.round(ms * 10) / 10;

/**
 * After a load with the triggers off: `tenant`'s conversation and bot counters and every lead
 * counter set from the rows, as the triggers would have (the deletes measured here run with them on).
 */
async function setCounters(db, tenant) {
  await db.query(`SET session_replication_role = origin`);
  await db.query(
    `UPDATE "Conversation" c SET "messageCount" = m.n, "lastMessageAt" = m.last
     FROM (SELECT "conversationId", count(*)::int n, max("createdAt") last FROM "Message" WHERE "tenantId" = $1 GROUP BY 1) m WHERE m."conversationId" = c.id`,
    [tenant],
  );
  await db.query(
    `UPDATE "Bot" b SET "conversationCount" = x.n, "messageCount" = x.m
     FROM (SELECT "botId", count(*)::int n, sum("messageCount")::int m FROM "Conversation" WHERE "tenantId" = $1 GROUP BY 1) x WHERE x."botId" = b.id`,
    [tenant],
  );
  await refreshLeadCounters(db);
  await db.query(`ANALYZE "Lead", "Conversation", "Message", "WebhookEvent", "LeadCounter"`);
}

/**
 * The erasure tenant's data, in bulk SQL with the triggers off (counters set afterwards, searchText
 * written here): `people` persons, each a lead whose conversation's visitor has 10 conversations of 100
 * messages, and each mentioned in a stored lead.created payload; around them other people's
 * 20,000 leads, 2,000 conversations with 20,000 messages and 20,000 webhook payloads, which the
 * erasure's scans of the copies read through.
 */
async function seedPeople(dbUrl, people) {
  return withDatabase(dbUrl, async (db) => {
    const {
      rows: [{ tenant, bot }],
    } = await db.query(
      `SELECT t.id::text AS tenant, b.id::text AS bot FROM bench_tenant t JOIN bench_bot b ON b.tenant_idx = t.idx AND b.idx = 0 WHERE t.idx = $1`,
      [ERASURE_TENANT],
    );
    await db.query(`SET session_replication_role = replica`);
    await db.query(
      `INSERT INTO "Lead" (id, "tenantId", "botId", name, email, "searchText", source, tags, "createdAt", "updatedAt")
       SELECT gen_random_uuid(), $1, $2, 'Other Person ' || g, 'other' || g || '@example.com', lead_search_text('Other Person ' || g, 'other' || g || '@example.com', NULL), 'api', '{}', now() - g * interval '1 minute', now() FROM generate_series(1, 20000) g`,
      [tenant, bot],
    );
    await db.query(
      `WITH c AS (
         INSERT INTO "Conversation" (id, "tenantId", "botId", "visitorId", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), $1, $2, 'other-visitor-' || g, now() - g * interval '1 minute', now() FROM generate_series(1, 2000) g RETURNING id, "createdAt")
       INSERT INTO "Message" (id, "tenantId", "conversationId", role, content, "createdAt")
       SELECT gen_random_uuid(), $1, c.id, (ARRAY['user','assistant'])[1 + n % 2]::"MessageRole", 'Another visitor asks about plans, message ' || n, c."createdAt" + n * interval '1 second'
       FROM c CROSS JOIN generate_series(1, 10) n`,
      [tenant, bot],
    );
    await db.query(
      `INSERT INTO "WebhookEvent" (id, "tenantId", type, data, "createdAt")
       SELECT gen_random_uuid(), $1, 'lead.created', json_build_object('object', json_build_object('id', gen_random_uuid(), 'name', 'Other Person ' || g, 'email', 'other' || g || '@example.com')), now()
       FROM generate_series(1, 20000) g`,
      [tenant],
    );
    const emails = [];
    for (let person = 0; person < people; person++) {
      const email = `erase-me-${person}@example.com`;
      const visitor = `erase-visitor-${person}`;
      await db.query(
        `WITH c AS (
           INSERT INTO "Conversation" (id, "tenantId", "botId", "visitorId", "createdAt", "updatedAt")
           SELECT gen_random_uuid(), $1, $2, $3, now() - g * interval '1 day', now() FROM generate_series(1, ${CONVERSATIONS_PER_PERSON}) g RETURNING id, "createdAt"),
         m AS (
           INSERT INTO "Message" (id, "tenantId", "conversationId", role, content, "createdAt")
           SELECT gen_random_uuid(), $1, c.id, (ARRAY['user','assistant'])[1 + n % 2]::"MessageRole", 'My order number is ' || n || ', can you help me?', c."createdAt" + n * interval '1 second'
           FROM c CROSS JOIN generate_series(1, ${MESSAGES_PER_PERSON / CONVERSATIONS_PER_PERSON}) n),
         l AS (
           INSERT INTO "Lead" (id, "tenantId", "botId", "conversationId", name, email, "searchText", source, tags, "createdAt", "updatedAt")
           SELECT gen_random_uuid(), $1, $2, (SELECT id FROM c ORDER BY "createdAt" DESC LIMIT 1), 'Erase Me ' || $5, $4, lead_search_text('Erase Me ' || $5, $4, NULL), 'widget', '{}', now(), now() RETURNING id)
         INSERT INTO "WebhookEvent" (id, "tenantId", type, data, "createdAt")
         SELECT gen_random_uuid(), $1, 'lead.created', json_build_object('object', json_build_object('id', l.id, 'name', 'Erase Me ' || $5, 'email', $4::text)), now() FROM l`,
        [tenant, bot, visitor, email, String(person)],
      );
      emails.push(email);
    }
    await setCounters(db, tenant);
    return emails;
  });
}

/** Erases each person through the API, one at a time: request to completed (polled every 10 ms), and when a worker claimed it. */
async function measureErasures(baseUrl, dbUrl, key, emails, log) {
  const runs = [];
  for (const email of emails) {
    const started = performance.now();
    const { erasure } = await call(baseUrl, key, 'POST', '/api/v1/privacy/erasures', { email });
    let claimedMs;
    let done;
    await withDatabase(dbUrl, async (db) => {
      for (;;) {
        if (claimedMs === undefined) {
          const { rows } = await db.query(`SELECT "leaseUntil" IS NOT NULL OR status = 'completed' AS claimed FROM "PrivacyErasure" WHERE id = $1`, [
            erasure.id,
          ]);
          if (rows[0].claimed) claimedMs = performance.now() - started;
        }
        done = (await call(baseUrl, key, 'GET', `/api/v1/privacy/erasures/${erasure.id}`)).erasure;
        if (done.status === 'completed') break;
        if (performance.now() - started > 120_000) throw new Error(`erasure ${erasure.id} not completed within 120 s`);
        await sleep(10);
      }
    });
    const totalMs = performance.now() - started;
    if (done.counts.messages !== MESSAGES_PER_PERSON) throw new Error(`erasure counted ${done.counts.messages} messages, not ${MESSAGES_PER_PERSON}`);
    runs.push({ totalMs: round(totalMs), claimedAfterMs: round(claimedMs), workMs: round(totalMs - claimedMs), counts: done.counts });
    log(`privacy: erased ${email} (${JSON.stringify(done.counts)}) in ${Math.round(totalMs)} ms (claimed after ${Math.round(claimedMs)} ms)`);
  }
  const left = await withDatabase(dbUrl, async (db) => {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM "Lead" WHERE email LIKE 'erase-me-%')::int AS leads, (SELECT count(*) FROM "Message" m JOIN "Conversation" c ON c.id = m."conversationId" WHERE c."visitorId" LIKE 'erase-visitor-%')::int AS messages,
              (SELECT count(*) FROM "WebhookEvent" WHERE data::text LIKE '%erase-me-%')::int AS payloads`,
    );
    return rows[0];
  });
  if (left.leads || left.messages || left.payloads) throw new Error(`erasures left rows behind: ${JSON.stringify(left)}`);
  return {
    runs,
    medianMs: median(runs.map((x) => x.totalMs)),
    medianWorkMs: median(runs.map((x) => x.workMs)),
    medianClaimedAfterMs: median(runs.map((x) => x.claimedAfterMs)),
  };
}

/** The sweep tenant's expired rows (created 400 days ago), 100,000 in all, and 10,000 recent leads that must stay. */
async function seedExpired(dbUrl) {
  return withDatabase(dbUrl, async (db) => {
    const {
      rows: [{ tenant, bot }],
    } = await db.query(
      `SELECT t.id::text AS tenant, b.id::text AS bot FROM bench_tenant t JOIN bench_bot b ON b.tenant_idx = t.idx AND b.idx = 0 WHERE t.idx = $1`,
      [SWEEP_TENANT],
    );
    await db.query(`SET session_replication_role = replica`);
    await db.query(
      `INSERT INTO "Lead" (id, "tenantId", "botId", name, email, company, "searchText", source, tags, "createdAt", "updatedAt")
       SELECT gen_random_uuid(), $1, $2, 'Old Lead ' || g, 'old' || g || '@example.com', 'Acme', lead_search_text('Old Lead ' || g, 'old' || g || '@example.com', 'Acme'), 'api', '{}', now() - interval '400 days' - g * interval '1 second', now() - interval '400 days'
       FROM generate_series(1, ${EXPIRED.leads}) g`,
      [tenant, bot],
    );
    await db.query(
      `INSERT INTO "Lead" (id, "tenantId", "botId", name, email, "searchText", source, tags, "createdAt", "updatedAt")
       SELECT gen_random_uuid(), $1, $2, 'Recent Lead ' || g, 'recent' || g || '@example.com', lead_search_text('Recent Lead ' || g, 'recent' || g || '@example.com', NULL), 'api', '{}', now() - g * interval '1 minute', now() FROM generate_series(1, 10000) g`,
      [tenant, bot],
    );
    await db.query(
      `WITH c AS (
         INSERT INTO "Conversation" (id, "tenantId", "botId", "visitorId", status, "endedAt", "createdAt", "updatedAt")
         SELECT gen_random_uuid(), $1, $2, 'old-visitor-' || g, 'ended', now() - interval '400 days', now() - interval '400 days' - g * interval '1 second', now() - interval '400 days'
         FROM generate_series(1, ${EXPIRED.conversations}) g RETURNING id, "createdAt")
       INSERT INTO "Message" (id, "tenantId", "conversationId", role, content, "createdAt")
       SELECT gen_random_uuid(), $1, c.id, (ARRAY['user','assistant'])[1 + n % 2]::"MessageRole", 'An old question about plans, message ' || n, c."createdAt" + n * interval '1 second'
       FROM c CROSS JOIN generate_series(1, ${EXPIRED.messagesPerConversation}) n`,
      [tenant, bot],
    );
    await setCounters(db, tenant);
    return tenant;
  });
}

async function expiredLeft(dbUrl, tenant) {
  return withDatabase(dbUrl, async (db) => {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM "Lead" WHERE "tenantId" = $1 AND "createdAt" < now() - interval '300 days')::int AS leads,
              (SELECT count(*) FROM "Lead" WHERE "tenantId" = $1 AND email LIKE 'recent%')::int AS recent,
              (SELECT count(*) FROM "Conversation" WHERE "tenantId" = $1 AND "visitorId" LIKE 'old-visitor-%')::int AS conversations,
              (SELECT count(*) FROM "Message" WHERE "tenantId" = $1 AND "createdAt" < now() - interval '300 days')::int AS messages`,
      [tenant],
    );
    return rows[0];
  });
}

/**
 * The retention job's state, polled every 20 ms from `from`: when an instance took it (its lease
 * set) and when it gave it back (lease cleared, next run an hour on).
 */
async function watchSweep(dbUrl, triggeredAt) {
  return withDatabase(dbUrl, async (db) => {
    let startedAt;
    for (;;) {
      const { rows } = await db.query(`SELECT "leaseUntil" IS NOT NULL AS held, "runAfter" > now() AS done FROM "BackgroundJob" WHERE name = 'retention'`);
      const now = performance.now();
      if (rows[0]?.held && startedAt === undefined) startedAt = now;
      if (startedAt !== undefined && !rows[0].held && rows[0].done) return { startedAt, endedAt: now };
      if (now - triggeredAt > 600_000) throw new Error('the retention sweep did not run within 10 minutes');
      await sleep(20);
    }
  });
}

/**
 * Runs the section against a service started with RETENTION_CHECK_SECONDS=1 (so that a sweep made
 * due starts within a second) on `dbUrl`; returns { erasure, sweep }.
 */
export async function measurePrivacy({ baseUrl, dbUrl, quick, log }) {
  const people = quick ? 3 : 7;
  const erasureKey = await createBenchKey(dbUrl, ERASURE_TENANT, ['privacy:manage'], 'bench privacy');
  const sweepKey = await createBenchKey(dbUrl, SWEEP_TENANT, ['leads:write', 'settings:write'], 'bench retention');
  // The first sweep of a fresh job runs at once on an empty database; what is measured comes after.
  await withDatabase(dbUrl, async (db) => {
    for (let i = 0; i < 300; i++) {
      const { rows } = await db.query(`SELECT 1 FROM "BackgroundJob" WHERE name = 'retention' AND "leaseUntil" IS NULL AND "runAfter" > now()`);
      if (rows.length) return;
      await sleep(100);
    }
    throw new Error('the first retention sweep did not run (is RETENTION_CHECK_SECONDS set?)');
  });

  let t = Date.now();
  const emails = await seedPeople(dbUrl, people);
  log(`privacy: seeded ${people} people with ${MESSAGES_PER_PERSON} messages each, and other people's rows, in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const erasure = await measureErasures(baseUrl, dbUrl, erasureKey, emails, log);
  log(`privacy: erasure median ${erasure.medianMs} ms (of which waiting for a worker ${erasure.medianClaimedAfterMs} ms)`);

  t = Date.now();
  const tenant = await seedExpired(dbUrl);
  log(`privacy: seeded 100,000 expired rows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  await call(baseUrl, sweepKey, 'PATCH', '/api/v1/settings', { retention: { conversationDays: 30, leadDays: 30 } });
  const createLead = {
    url: `${baseUrl}/api/v1/leads`,
    method: 'POST',
    headers: { 'X-API-Key': sweepKey, 'X-Forwarded-Proto': 'https' },
    body: { name: 'Bench Lead', email: 'bench@example.com', company: 'Acme Corp', tags: ['bench'] },
    rate: RATE,
  };
  const seconds = quick ? 8 : 15;
  const withoutSweep = await openLoop({ ...createLead, seconds });
  log(`privacy: create lead at ${RATE}/s without a sweep: p50 ${withoutSweep.p50} p99 ${withoutSweep.p99} max ${withoutSweep.max} ms`);

  // The same load; after 1 s the sweep is made due (the next check, within a second, starts it), and
  // the load goes on until it is done. The p99 counts the requests due while it ran.
  let sweepDone = false;
  const load = openLoop({ ...createLead, seconds: 600, stop: () => sweepDone, samples: true });
  await sleep(2_000);
  const triggeredAt = performance.now();
  await withDatabase(dbUrl, (db) => db.query(`UPDATE "BackgroundJob" SET "runAfter" = now() WHERE name = 'retention'`));
  const window = await watchSweep(dbUrl, triggeredAt);
  await sleep(1_000);
  sweepDone = true;
  const withSweep = await load;
  const during = withSweep.samples.filter(([due]) => due >= window.startedAt && due <= window.endedAt).map(([, ms]) => ms);
  const left = await expiredLeft(dbUrl, tenant);
  if (left.leads || left.conversations || left.messages || left.recent !== 10_000) throw new Error(`the sweep left ${JSON.stringify(left)}`);
  const sweep = {
    rows: EXPIRED.leads + EXPIRED.conversations * (1 + EXPIRED.messagesPerConversation),
    seconds: round((window.endedAt - window.startedAt) / 1000),
    startedAfterTriggerMs: Math.round(window.startedAt - triggeredAt),
    rate: RATE,
    withoutSweep,
    during: { requests: during.length, ...percentiles(during) },
    whole: {
      requests: withSweep.requests,
      p50: withSweep.p50,
      p99: withSweep.p99,
      max: withSweep.max,
      errors: withSweep.errors,
      maxSendLagMs: withSweep.maxSendLagMs,
    },
  };
  sweep.p99Ratio = +(sweep.during.p99 / withoutSweep.p99).toFixed(1);
  log(
    `privacy: swept ${sweep.rows.toLocaleString('en')} rows in ${sweep.seconds} s; create lead p99 ${sweep.during.p99} ms during it (${during.length} requests) against ${withoutSweep.p99} ms without (x${sweep.p99Ratio})`,
  );
  return { erasure, sweep };
}

export function privacyMarkdown({ erasure, sweep }) {
  return [
    '## Privacy: erasure and the retention sweep',
    '',
    `Erasing a person with ${MESSAGES_PER_PERSON.toLocaleString('en')} messages (a lead, ${CONVERSATIONS_PER_PERSON} conversations of their visitor, a stored webhook payload; the tenant also holds 20,000 other leads, 20,000 other messages and 20,000 webhook payloads the erasure's scans read), one at a time, ${erasure.runs.length} people: \`POST /api/v1/privacy/erasures\` to \`completed\` seen by polling \`GET .../erasures/:id\` every 10 ms.`,
    '',
    "| request to completed, median | of which waiting for a worker (idle poll: 1 s) | worker's own time, median | runs (ms) |",
    '|---|---|---|---|',
    `| ${erasure.medianMs} ms | ${erasure.medianClaimedAfterMs} ms | ${erasure.medianWorkMs} ms | ${erasure.runs.map((x) => Math.round(x.totalMs)).join(', ')} |`,
    '',
    `The retention sweep of ${sweep.rows.toLocaleString('en')} expired rows (${EXPIRED.leads.toLocaleString('en')} leads, ${EXPIRED.conversations.toLocaleString('en')} conversations with ${(EXPIRED.conversations * EXPIRED.messagesPerConversation).toLocaleString('en')} messages, created 400 days ago; retention 30 days; 10,000 recent leads kept), while leads are created at a steady ${sweep.rate} a second (bench/open-loop.mjs, latency from when each request was due):`,
    '',
    '| figure | value |',
    '|---|---|',
    `| sweep time (job taken to job given back, batches of 1,000) | ${sweep.seconds} s (${Math.round(sweep.rows / sweep.seconds).toLocaleString('en')} rows/s) |`,
    `| create lead without a sweep (${sweep.withoutSweep.requests} requests): p50 / p99 / max | ${sweep.withoutSweep.p50} / ${sweep.withoutSweep.p99} / ${sweep.withoutSweep.max} ms |`,
    `| create lead during the sweep (${sweep.during.requests} requests): p50 / p99 / max | ${sweep.during.p50} / ${sweep.during.p99} / ${sweep.during.max} ms |`,
    `| p99 during the sweep against without | x${sweep.p99Ratio} |`,
    '',
  ].join('\n');
}
