// Seeds the benchmark database in bulk, with server-side SQL (generate_series): 100 tenants,
// 300 bots, 50,000 conversations with 1,000,000 messages, and leads up to a target total
// (one tenant holds 20% of them), with realistic names, e-mails, companies and timestamps spread
// over a year. Triggers are off while loading (session_replication_role = replica); the
// counters they keep are then set from the rows in one statement each.
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import pg from 'pg';

const require = createRequire(import.meta.url);
const { generateApiKey } = require('../dist/tenancy/api-keys/api-key-format.js');

export const BENCH_PEPPER = 'bench-pepper-0123456789abcdef';
export const TENANTS = 100;
const BOTS_PER_TENANT = 3;
const CONVERSATIONS = 50_000;
const MESSAGES_PER_CONVERSATION = 20;

const FIRST = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'William',
  'Elizabeth',
  'David',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Karen',
  'Daniel',
  'Nancy',
  'Matthew',
  'Lisa',
  'Anthony',
  'Betty',
  'Mark',
  'Margaret',
  'Paul',
  'Sandra',
  'Steven',
  'Ashley',
  'Andrew',
  'Kimberly',
  'Kenneth',
  'Emily',
  'Joshua',
  'Donna',
  'Kevin',
  'Michelle',
  'Brian',
  'Carol',
  'George',
  'Amanda',
  'Timothy',
  'Melissa',
  'Ronald',
  'Deborah',
  'Jason',
  'Stephanie',
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margit',
  'Jürgen',
  'Søren',
  'Zoë',
  'Amélie',
  'Nikolai',
];
const LAST = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Lovelace',
  'Hopper',
  'Turing',
  'Müller',
  'Schmidt',
  'Nielsen',
  'Dubois',
  'Rossi',
  'Kowalski',
  'Novak',
];
const COMPANIES = [
  'Acme Corp',
  'Globex',
  'Initech',
  'Umbrella',
  'Stark Industries',
  'Wayne Enterprises',
  'Hooli',
  'Pied Piper',
  'Soylent',
  'Tyrell',
  'Cyberdyne',
  'Wonka Industries',
  'Aperture Science',
  'Black Mesa',
  'Vandelay Industries',
  'Dunder Mifflin',
  'Prestige Worldwide',
  'Gringotts',
  'Oceanic Airlines',
  'Monsters Inc',
  'Bluth Company',
  'Sterling Cooper',
  'Los Pollos Hermanos',
  'Massive Dynamic',
  'Nakatomi Trading',
  'Virtucon',
  'Gekko & Co',
  'Rekall',
  'Oscorp',
  'LexCorp',
];
const DOMAINS = ['example.com', 'mail.example', 'corp.example', 'inbox.test', 'post.example'];

const sqlArray = (values) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;

/** Runs `work` on a connection of its own to `url`, closed afterwards whatever happens. */
export async function withDatabase(url, work) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

export async function createBenchDatabase(adminUrl, name) {
  await withDatabase(adminUrl, async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A secret key of tenant `idx` (bench_tenant) with `scopes`; returns the key. */
async function insertKey(db, idx, scopes, name = 'bench') {
  const key = generateApiKey('secret');
  const digest = createHmac('sha256', BENCH_PEPPER).update(key).digest('hex');
  await db.query(
    `INSERT INTO "ApiKey" (id, "tenantId", name, type, scopes, digest, prefix, last4, "createdAt")
     SELECT gen_random_uuid(), id, $4, 'secret', $5::text[], $1, 'svc_sk_', $2, now() FROM bench_tenant WHERE idx = $3`,
    [digest, key.slice(-4), idx, name, scopes],
  );
  return key;
}

/** One more key for tenant `idx`, with `scopes` (e.g. the webhooks section's leads:write + webhooks:manage). */
export function createBenchKey(url, idx, scopes, name) {
  return withDatabase(url, (db) => insertKey(db, idx, scopes, name));
}

/**
 * Tenants (the first one is the big one), bots, keys, conversations and messages; with
 * `conversations: false`, no conversations or messages (what the webhooks section alone needs).
 */
export function seedBase(url, { conversations = true } = {}) {
  return withDatabase(url, async (db) => {
    await db.query(`SET session_replication_role = replica`);
    await db.query(`
      INSERT INTO "Tenant" (id, name, slug, plan, "createdAt", "updatedAt")
      SELECT gen_random_uuid(), CASE WHEN g = 1 THEN 'Big Co' ELSE 'Tenant ' || g END, 'tenant-' || g, 'enterprise', now() - interval '400 days', now()
      FROM generate_series(1, ${TENANTS}) g`);
    await db.query(`CREATE TABLE bench_tenant AS SELECT row_number() OVER (ORDER BY slug COLLATE "C") - 1 AS idx, id FROM "Tenant"`);
    await db.query(`UPDATE bench_tenant b SET idx = (SELECT (regexp_replace(t.slug, '\\D', '', 'g'))::int - 1 FROM "Tenant" t WHERE t.id = b.id)`);
    await db.query(`
      INSERT INTO "Bot" (id, "tenantId", name, "isActive", "primaryColor", language, "createdAt", "updatedAt")
      SELECT gen_random_uuid(), t.id, 'Bot ' || n, n <> 3, '#2563eb', 'en', now() - interval '390 days' + n * interval '1 day', now()
      FROM bench_tenant t CROSS JOIN generate_series(1, ${BOTS_PER_TENANT}) n`);
    await db.query(
      `CREATE TABLE bench_bot AS SELECT t.idx AS tenant_idx, row_number() OVER (PARTITION BY b."tenantId" ORDER BY b."createdAt") - 1 AS idx, b.id FROM "Bot" b JOIN bench_tenant t ON t.id = b."tenantId"`,
    );
    await db.query(`CREATE INDEX ON bench_bot (tenant_idx, idx)`);

    const keys = [];
    for (let idx = 0; idx < TENANTS; idx++)
      keys.push(await insertKey(db, idx, ['bots:read', 'conversations:read', 'leads:read', 'leads:write', 'analytics:read']));
    if (!conversations) return keys;

    await db.query(`
      INSERT INTO "Conversation" (id, "tenantId", "botId", status, channel, "visitorId", "messageCount", "lastMessageAt", "endedAt", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), t.id, b.id, (ARRAY['active','ended','handed_off'])[1 + g % 3]::"ConversationStatus", 'widget', 'visitor-' || g,
             ${MESSAGES_PER_CONVERSATION}, ts + interval '10 minutes', CASE WHEN g % 3 = 1 THEN ts + interval '10 minutes' END, ts, ts
      FROM generate_series(0, ${CONVERSATIONS - 1}) g
      CROSS JOIN LATERAL (SELECT now() - (g % 365) * interval '1 day' - (g % 86400) * interval '1 second' AS ts) x
      -- Half of them the big tenant's (its analytics read 500,000 messages), the rest spread over all.
      JOIN bench_tenant t ON t.idx = CASE WHEN g % 2 = 0 THEN 0 ELSE g % ${TENANTS} END
      JOIN bench_bot b ON b.tenant_idx = t.idx AND b.idx = g % ${BOTS_PER_TENANT}`);
    await db.query(`
      INSERT INTO "Message" (id, "tenantId", "conversationId", role, content, "createdAt")
      SELECT gen_random_uuid(), c."tenantId", c.id, (ARRAY['user','assistant'])[1 + n % 2]::"MessageRole",
             CASE WHEN n % 2 = 0 THEN 'Hello, I have a question about pricing and plans number ' || n ELSE 'Thanks for asking! Our plans start at 49 EUR a month. Anything else?' END,
             c."createdAt" + n * interval '30 seconds'
      FROM "Conversation" c CROSS JOIN generate_series(0, ${MESSAGES_PER_CONVERSATION - 1}) n`);
    return keys;
  });
}

/**
 * Adds leads until the table holds `total` rows: lead g goes to the big tenant when g % 5 = 0,
 * otherwise to one of the 99 others; createdAt spread over the last year.
 */
export function growLeads(url, total) {
  return withDatabase(url, async (db) => {
    await db.query(`SET session_replication_role = replica`);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM "Lead"`);
    const from = rows[0].n;
    const step = 200_000;
    for (let start = from; start < total; start += step) {
      const end = Math.min(total, start + step) - 1;
      await db.query(`
        INSERT INTO "Lead" (id, "tenantId", "botId", name, email, phone, company, "searchText", message, source, status, tags, "createdAt", "updatedAt")
        SELECT gen_random_uuid(), t.id, b.id, y.name, y.email,
               '+1 555 ' || lpad((g % 10000)::text, 4, '0'), co, lead_search_text(y.name, y.email, co),
               CASE WHEN g % 4 = 0 THEN 'Interested in a demo next week' END,
               (CASE WHEN g % 3 = 0 THEN 'widget' ELSE 'api' END)::"LeadSource",
               (ARRAY['new','new','new','contacted','qualified','unqualified','converted'])[1 + g % 7]::"LeadStatus",
               CASE WHEN g % 6 = 0 THEN ARRAY['webinar'] ELSE '{}'::text[] END,
               ts, ts
        FROM generate_series(${start}, ${end}) g
        CROSS JOIN LATERAL (SELECT
          (${sqlArray(FIRST)})[1 + (g::bigint * 7919) % ${FIRST.length}] AS fn,
          (${sqlArray(LAST)})[1 + (g::bigint * 104729) % ${LAST.length}] AS ln,
          (${sqlArray(COMPANIES)})[1 + (g::bigint * 31) % ${COMPANIES.length}] AS co,
          (${sqlArray(DOMAINS)})[1 + g % ${DOMAINS.length}] AS dom,
          now() - ((g * 2654435761::bigint) % 31536000) * interval '1 second' AS ts,
          CASE WHEN g % 5 = 0 THEN 0 ELSE 1 + g % ${TENANTS - 1} END AS tenant_idx) x
        CROSS JOIN LATERAL (SELECT fn || ' ' || ln AS name,
          lower(translate(fn, 'üøéë', 'uoee')) || '.' || lower(translate(ln, 'ü', 'u')) || g || '@' || dom AS email) y
        JOIN bench_tenant t ON t.idx = x.tenant_idx
        JOIN bench_bot b ON b.tenant_idx = t.idx AND b.idx = g % ${BOTS_PER_TENANT}`);
    }
    // The load ran without triggers: searchText is set above, and the lead counters from the rows,
    // as the triggers would have.
    await refreshLeadCounters(db);
    // A bulk load leaves the visibility map unset, which autovacuum would soon fix in production;
    // without it index-only scans (the counts) visit every heap page.
    await db.query(`VACUUM ANALYZE "Lead"`);
  });
}

/** Sets the lead counters (LeadCounter) from the rows, as the Lead_count trigger would have. */
export async function refreshLeadCounters(db) {
  await db.query(`DELETE FROM "LeadCounter"`);
  await db.query(`INSERT INTO "LeadCounter" ("tenantId", "botKey", "shard", "count")
    SELECT "tenantId", COALESCE("botId", '00000000-0000-0000-0000-000000000000'), lead_counter_shard(id), count(*)::int FROM "Lead" GROUP BY 1, 2, 3`);
}

/** Sets the trigger-kept counters from the rows, as the triggers would have. */
export function refreshCounters(url) {
  return withDatabase(url, async (db) => {
    await db.query(
      `UPDATE "Conversation" c SET "messageCount" = m.n, "lastMessageAt" = m.last FROM (SELECT "conversationId", count(*)::int n, max("createdAt") last FROM "Message" GROUP BY 1) m WHERE m."conversationId" = c.id`,
    );
    await db.query(
      `UPDATE "Bot" b SET "conversationCount" = x.n, "messageCount" = x.m FROM (SELECT "botId", count(*)::int n, sum("messageCount")::int m FROM "Conversation" GROUP BY 1) x WHERE x."botId" = b.id`,
    );
    await db.query(`VACUUM ANALYZE`);
  });
}
