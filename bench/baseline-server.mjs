// The baseline: the fastest plain thing that does the service's work for the benchmark's
// requests. node:http and pg, the same SQL and the same JSON, but no framework, no validation,
// no authentication (the tenant comes from a key -> tenant map held in memory) and no logging.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import pg from 'pg';

// The widget's passages are found by the service's own search (its statements, built by the
// built repository, and its cache of word counts), so that the baseline runs the same SQL.
const require = createRequire(import.meta.url);
const { KnowledgeChunksRepository } = require('../dist/knowledge/knowledge-chunks.repository.js');
const { AnalyticsRepository } = require('../dist/analytics/analytics.repository.js');
const { questionTerms } = require('../dist/answering/question-terms.js');
const { WordNetSynonyms } = require('../dist/answering/wordnet-synonyms.js');
const { botSynonymLookup } = require('../dist/answering/bot-synonyms.js');
const { MIN_COVERAGE } = require('../dist/answering/answer.service.js');

// The service's session settings (src/database/database-connection.ts): no JIT for short statements.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10), options: '-c jit=off' });
// The service's repositories whose statements are built in SQL, run on pg directly: the baseline
// sends exactly their statements, and follows them when they change.
const rawQueries = { $queryRaw: async (sql) => (await pool.query(sql.text, sql.values)).rows };
const chunks = new KnowledgeChunksRepository(rawQueries);
const analytics = new AnalyticsRepository(rawQueries);
const wordNet = new WordNetSynonyms();
const tenants = JSON.parse(process.env.BENCH_KEYS); // { key: tenantId }

const iso = (d) => (d ? d.toISOString() : null);
const LEAD = `id, name, email, phone, company, message, "botId", "conversationId", source, status, tags, "createdAt", "updatedAt"`;
const toLead = (r) => ({
  id: r.id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  company: r.company,
  message: r.message,
  botId: r.botId,
  conversationId: r.conversationId,
  source: r.source,
  status: r.status,
  tags: r.tags,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
});
const toBot = (r) => ({
  id: r.id,
  name: r.name,
  isActive: r.isActive,
  avatarUrl: r.avatarUrl,
  primaryColor: r.primaryColor,
  language: r.language,
  messageCount: r.messageCount,
  conversationCount: r.conversationCount,
  knowledgeBaseSize: r.knowledgeBaseSize,
  createdAt: iso(r.createdAt),
  updatedAt: iso(r.updatedAt),
});
const toMessage = (r) => ({ id: r.id, conversationId: r.conversationId, role: r.role, content: r.content, createdAt: iso(r.createdAt) });
const DEFERRED_JOIN_OFFSET = 500; // as src/leads/leads.repository.ts
// BASELINE_SQL=naive: the SQL before the optimisations (count(*) for every total, deep pages read
// in one query, a conversation's messages counted, search on each field), to measure them in the
// same run.
const naive = process.env.BASELINE_SQL === 'naive';
const page = (limit, offset, total) => ({ total, limit, offset, hasMore: offset + limit < total });

function leadFilter(tenantId, q) {
  const where = ['"tenantId" = $1'];
  const args = [tenantId];
  if (q.get('botId')) where.push(`"botId" = $${args.push(q.get('botId'))}`);
  if (q.get('from')) where.push(`"createdAt" >= $${args.push(new Date(q.get('from')))}`);
  if (q.get('to')) where.push(`"createdAt" <= $${args.push(new Date(q.get('to')))}`);
  if (q.get('search')) {
    // As src/leads/leads.repository.ts matchingSearch.
    const term = q.get('search');
    const escape = (text) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
    const folded = `%${escape(term.replace(/\u0130/g, 'i').replace(/\u212a/g, 'k'))}%`;
    if (!naive) {
      if (/^[\x00-\x7f]*$/.test(folded)) where.push(`"searchText" LIKE $${args.push(folded.toLowerCase())}`);
      else where.push(`"searchText" ILIKE $${args.push(folded)}`);
    }
    // Each field: the SQL before the search column (naive, on trigram indexes per field built by
    // the run), and the service's check that a term with a line break matches within one field.
    if (naive || term.includes('\n')) {
      const n = args.push(`%${escape(term)}%`);
      where.push(`(name ILIKE $${n} OR email ILIKE $${n} OR company ILIKE $${n})`);
    }
  }
  return { where: where.join(' AND '), args };
}

const routes = {
  async verify(tenantId) {
    // The month's usage, as src/usage/message-quota.repository.ts reads it.
    const [{ rows }, usage] = await Promise.all([
      pool.query(`SELECT id, name, slug, plan FROM "Tenant" WHERE id = $1`, [tenantId]),
      pool.query(`SELECT count FROM "MessageUsage" WHERE "tenantId" = $1 AND month = date_trunc('month', now() AT TIME ZONE 'UTC')::date`, [tenantId]),
    ]);
    const usedThisMonth = usage.rows[0]?.count ?? 0;
    return [
      200,
      {
        valid: true,
        tenant: { id: rows[0].id, name: rows[0].name, slug: rows[0].slug },
        plan: { name: rows[0].plan, botsLimit: 100, messagesLimit: 250000 },
        usage: { messagesThisMonth: usedThisMonth },
      },
    ];
  },
  async bots(tenantId) {
    const { rows } = await pool.query(`SELECT * FROM "Bot" WHERE "tenantId" = $1 ORDER BY "createdAt", id`, [tenantId]);
    return [200, { bots: rows.map(toBot) }];
  },
  async leads(tenantId, q) {
    const limit = Number(q.get('limit') ?? 20);
    const offset = Number(q.get('offset') ?? 0);
    const { where, args } = leadFilter(tenantId, q);
    const [list, count] = await Promise.all([
      naive || offset < DEFERRED_JOIN_OFFSET
        ? pool.query(`SELECT ${LEAD} FROM "Lead" WHERE ${where} ORDER BY "createdAt" DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, args)
        : pool
            .query(`SELECT id FROM "Lead" WHERE ${where} ORDER BY "createdAt" DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, args)
            .then(({ rows }) =>
              pool.query(`SELECT ${LEAD} FROM "Lead" WHERE "tenantId" = $1 AND id = ANY($2) ORDER BY "createdAt" DESC, id DESC`, [
                tenantId,
                rows.map((r) => r.id),
              ]),
            ),
      // The service's count: the trigger-kept counters unless search or dates are given.
      naive || q.get('search') || q.get('from') || q.get('to')
        ? pool.query(`SELECT count(*)::int AS n FROM "Lead" WHERE ${where}`, args)
        : q.get('botId')
          ? pool.query(`SELECT coalesce(sum(count), 0)::int AS n FROM "LeadCounter" WHERE "tenantId" = $1 AND "botKey" = $2`, [tenantId, q.get('botId')])
          : pool.query(`SELECT coalesce(sum(count), 0)::int AS n FROM "LeadCounter" WHERE "tenantId" = $1`, [tenantId]),
    ]);
    return [200, { leads: list.rows.map(toLead), pagination: page(limit, offset, count.rows[0].n) }];
  },
  async messages(tenantId, q, id) {
    const limit = Number(q.get('limit') ?? 50);
    const offset = Number(q.get('offset') ?? 0);
    const [count, list] = await Promise.all([
      naive
        ? pool
            .query(`SELECT 1 FROM "Conversation" WHERE id = $1 AND "tenantId" = $2`, [id, tenantId])
            .then((exists) =>
              exists.rowCount ? pool.query(`SELECT count(*)::int AS n FROM "Message" WHERE "tenantId" = $1 AND "conversationId" = $2`, [tenantId, id]) : exists,
            )
        : pool.query(`SELECT "messageCount" AS n FROM "Conversation" WHERE id = $1 AND "tenantId" = $2`, [id, tenantId]),
      pool.query(
        `SELECT id, "conversationId", role, content, "createdAt" FROM "Message" WHERE "tenantId" = $1 AND "conversationId" = $2 ORDER BY "createdAt", id LIMIT ${limit} OFFSET ${offset}`,
        [tenantId, id],
      ),
    ]);
    if (!count.rowCount) return [404, { error: { code: 'NOT_FOUND', message: 'Conversation not found.', status: 404 } }];
    return [200, { messages: list.rows.map(toMessage), pagination: page(limit, offset, count.rows[0].n) }];
  },
  // The overview's statements are analytics.repository.ts's own (countFigures); the rates as
  // analytics.service.ts computes them.
  async analyticsOverview(tenantId, q) {
    const to = new Date(q.get('to'));
    const from = new Date(q.get('from'));
    const previous = { from: new Date(from.getTime() - (to.getTime() - from.getTime()) - 1), to: new Date(from.getTime() - 1) };
    await pool.query(`SELECT timezone FROM "Tenant" WHERE id = $1`, [tenantId]);
    const counts = await analytics.countFigures(tenantId, {}, { from, to }, previous);
    const ratio = (part, whole) => (whole ? part / whole : 0);
    const figures = (range, x) => ({
      range: { from: iso(range.from), to: iso(range.to) },
      conversations: x.conversations,
      messages: { user: x.userMessages, assistant: x.assistantMessages, agent: x.agentMessages },
      leads: x.leads,
      uniqueVisitors: x.uniqueVisitors,
      leadConversionRate: ratio(x.convertedConversations, x.conversations),
      unansweredRate: ratio(x.unansweredMessages, x.assistantMessages),
      avgMessagesPerConversation: ratio(x.userMessages + x.assistantMessages + x.agentMessages, x.conversations),
      handoffRate: ratio(x.handedOffConversations, x.conversations),
      medianFirstAgentResponseSeconds: x.medianFirstAgentResponseSeconds,
    });
    return [200, { ...figures({ from, to }, counts.current), previous: figures(previous, counts.previous) }];
  },
  async analyticsTimeseries(tenantId, q) {
    const {
      rows: [{ timezone }],
    } = await pool.query(`SELECT timezone FROM "Tenant" WHERE id = $1`, [tenantId]);
    const interval = q.get('interval') ?? 'day';
    const step = { day: '1 day', week: '1 week', month: '1 month' }[interval];
    const { rows } = await pool.query(
      `WITH counted AS (
         SELECT date_trunc($4::text, x."createdAt" AT TIME ZONE $5::text) AS period, count(*)::int AS count
         FROM "Message" x WHERE x."tenantId" = $1 AND x."createdAt" BETWEEN $2 AND $3 GROUP BY 1)
       SELECT to_char(p.period, 'YYYY-MM-DD') AS period, coalesce(counted.count, 0)::int AS count
       FROM generate_series(date_trunc($4::text, $2::timestamptz AT TIME ZONE $5::text), date_trunc($4::text, $3::timestamptz AT TIME ZONE $5::text), $6::interval) AS p(period)
       LEFT JOIN counted ON counted.period = p.period ORDER BY p.period`,
      [tenantId, new Date(q.get('from')), new Date(q.get('to')), interval, timezone, step],
    );
    return [200, { metric: 'messages', interval, timezone, points: rows }];
  },
  // A widget message, as src/widget/widget.service.ts exchange() does it: the visitor token, the
  // bot, the conversation, the limits, the passages (src/knowledge/knowledge-chunks.repository.ts's
  // search itself, with src/answering/answer.service.ts's choice of them),
  // then one transaction that counts the reply and stores both messages with their events.
  async widgetMessage(tenantId, _q, conversationId, body, headers) {
    const claims = visitorClaims(headers['x-visitor-token']);
    if (!claims || claims.t !== tenantId) return [401, { error: { code: 'INVALID_VISITOR_TOKEN', message: 'Invalid visitor token.', status: 401 } }];
    const content = JSON.parse(body).content.trim();
    const {
      rows: [bot],
    } = await pool.query(
      `SELECT id, name, "isActive", "avatarUrl", "primaryColor", language, "welcomeMessage", "suggestedQuestions", "fallbackMessage", "showSources", synonyms, "knowledgeVersion" FROM "Bot" WHERE "tenantId" = $1 AND id = $2`,
      [tenantId, claims.b],
    );
    const {
      rows: [conversation],
    } = await pool.query(`SELECT * FROM "Conversation" WHERE "tenantId" = $1 AND "botId" = $2 AND "visitorId" = $3 AND channel = 'widget' AND id = $4`, [
      tenantId,
      bot.id,
      claims.v,
      conversationId,
    ]);
    if (!conversation) return [404, { error: { code: 'NOT_FOUND', message: 'Conversation not found.', status: 404 } }];
    await pool.query(`SELECT "visitorMessageLimit", "visitorMessageWindowSeconds" FROM "Tenant" WHERE id = $1`, [tenantId]);
    await pool.query(`SELECT count FROM "MessageUsage" WHERE "tenantId" = $1 AND month = $2::date`, [tenantId, monthOf()]);
    const own = botSynonymLookup(bot.synonyms);
    const expand = (word) => [...own(word).map((text) => ({ text, weight: 0.8 })), ...wordNet.synonymsOf(word).map((text) => ({ text, weight: 0.5 }))];
    const passages = await chunks.search(tenantId, bot, questionTerms(content, expand), 12);
    const chosen = [];
    const perDocument = new Map();
    for (const passage of passages) {
      if (passage.coverage < MIN_COVERAGE || !passage.specific) continue;
      if (chosen.length === 3) break;
      if ((perDocument.get(passage.documentId) ?? 0) === 2) continue;
      perDocument.set(passage.documentId, (perDocument.get(passage.documentId) ?? 0) + 1);
      chosen.push(passage);
    }
    const reply = chosen.length ? chosen.map((p) => p.content).join('\n\n') : bot.fallbackMessage;
    const sources = [...new Map(chosen.map((p) => [p.documentId, { id: p.documentId, title: p.title }])).values()];
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // The service's order (widget.service.ts storeReply): the conversation locked and still
      // active, then the month's count. The other order deadlocks against the service when both
      // serve the conversation (a server still draining its queue as the next one is measured).
      const locked = await client.query(`SELECT status FROM "Conversation" WHERE "tenantId" = $1 AND id = $2 FOR UPDATE`, [tenantId, conversationId]);
      if (locked.rows[0]?.status !== 'active') throw new Error('conversation not active');
      const taken = await client.query(
        `INSERT INTO "MessageUsage" ("tenantId", month, count) VALUES ($1, $2::date, 1)
         ON CONFLICT ("tenantId", month) DO UPDATE SET count = "MessageUsage".count + 1 WHERE "MessageUsage".count < $3 RETURNING count`,
        [tenantId, monthOf(), 250000],
      );
      if (!taken.rowCount) throw new Error('limit');
      const now = new Date();
      const { rows: stored } = await client.query(
        `INSERT INTO "Message" (id, "tenantId", "conversationId", role, content, unanswered, "createdAt")
         VALUES (gen_random_uuid(), $1, $2, 'user', $3, false, $4), (gen_random_uuid(), $1, $2, 'assistant', $5, $6, $7)
         RETURNING id, "conversationId", role, content, "createdAt"`,
        [tenantId, conversationId, content, now, reply, !chosen.length, new Date(now.getTime() + 1)],
      );
      for (const message of stored) {
        await client.query(
          `WITH endpoint AS (SELECT id FROM "WebhookEndpoint" WHERE "tenantId" = $1 AND enabled AND (events @> ARRAY['message.created']::text[] OR events @> ARRAY['*']::text[])),
           event AS (INSERT INTO "WebhookEvent" (id, "tenantId", type, data) SELECT gen_random_uuid(), $1, 'message.created', $2::json WHERE EXISTS (SELECT 1 FROM endpoint) RETURNING id, type)
           INSERT INTO "WebhookDelivery" (id, "tenantId", "endpointId", "eventId", "eventType", "updatedAt") SELECT gen_random_uuid(), $1, endpoint.id, event.id, event.type, now() FROM endpoint, event`,
          [tenantId, JSON.stringify({ object: toMessage(message) })],
        );
      }
      await client.query('COMMIT');
      const [message, assistant] = stored.map(toMessage);
      return [201, { message, reply: { ...assistant, sources: bot.showSources ? sources : [] } }];
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  },
  async createLead(tenantId, _q, _id, body) {
    const b = JSON.parse(body);
    const { rows } = await pool.query(
      `INSERT INTO "Lead" (id, "tenantId", "botId", name, email, phone, company, message, source, status, tags, "createdAt", "updatedAt")
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, 'api', 'new', $8, now(), now()) RETURNING ${LEAD}`,
      [tenantId, b.botId ?? null, b.name, b.email, b.phone ?? null, b.company ?? null, b.message ?? null, b.tags ?? []],
    );
    return [201, { lead: toLead(rows[0]) }];
  },
};

const WIDGET_SECRET = process.env.WIDGET_TOKEN_SECRET;
/** The claims of a visitor token signed as src/widget/visitor-token.ts signs them. */
function visitorClaims(token) {
  const [version, payload, signature] = String(token ?? '').split('.');
  if (version !== 'v1' || createHmac('sha256', WIDGET_SECRET).update(`visitor-token.${payload}`).digest('base64url') !== signature) return undefined;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  return claims.e > Date.now() / 1000 ? claims : undefined;
}
const monthOf = () => new Date().toISOString().slice(0, 8) + '01';

function route(method, path) {
  const widget = /^\/api\/v1\/widget\/conversations\/([^/]+)\/messages$/.exec(path);
  if (method === 'POST' && widget) return ['widgetMessage', widget[1]];
  if (method === 'GET' && path === '/api/v1/verify') return ['verify'];
  if (method === 'GET' && path === '/api/v1/bots') return ['bots'];
  if (method === 'GET' && path === '/api/v1/leads') return ['leads'];
  if (method === 'POST' && path === '/api/v1/leads') return ['createLead'];
  if (method === 'GET' && path === '/api/v1/analytics/overview') return ['analyticsOverview'];
  if (method === 'GET' && path === '/api/v1/analytics/timeseries') return ['analyticsTimeseries'];
  const m = /^\/api\/v1\/conversations\/([^/]+)\/messages$/.exec(path);
  if (method === 'GET' && m) return ['messages', m[1]];
  return [];
}

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const url = new URL(req.url, 'http://x');
      const [name, id] = route(req.method, url.pathname);
      const tenantId = tenants[req.headers['x-api-key']];
      let status = 404;
      let payload = { error: { code: 'NOT_FOUND', message: 'Not found.', status: 404 } };
      try {
        if (name && tenantId) [status, payload] = await routes[name](tenantId, url.searchParams, id, body, req.headers);
      } catch (error) {
        status = 500;
        payload = { error: { code: 'INTERNAL_ERROR', message: String(error.message), status: 500 } };
      }
      const json = JSON.stringify(payload);
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
      res.end(json);
    });
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
