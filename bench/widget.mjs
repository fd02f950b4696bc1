// The widget scenario: a visitor sends a message and gets the bot's reply (extractive, from a bot
// with 10,000 knowledge passages), against the baseline doing the same SQL. Prepared here: the
// bot's documents and passages, a public key, a visitor's session and conversation.
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { BENCH_PEPPER, withDatabase } from './seed.mjs';

const require = createRequire(import.meta.url);
const { generateApiKey } = require('../dist/tenancy/api-keys/api-key-format.js');

export const WIDGET_TENANT = 3;
const DOCUMENTS = 500;
const PASSAGES_PER_DOCUMENT = 20;
const TOPICS = [
  'pricing',
  'refund',
  'shipping',
  'security',
  'invoice',
  'trial',
  'password',
  'integration',
  'language',
  'export',
  'support',
  'webhook',
  'seats',
  'uptime',
  'privacy',
];
export const WIDGET_QUESTION = 'How long does shipping to Germany take and what does express delivery cost?';

/** The bot's 10,000 passages (500 documents of 20), a public key, and the tenant's limits opened for the load. */
export async function seedWidget(url) {
  return withDatabase(url, async (db) => {
    const {
      rows: [tenant],
    } = await db.query(`SELECT id FROM bench_tenant WHERE idx = $1`, [WIDGET_TENANT]);
    const {
      rows: [bot],
    } = await db.query(`SELECT id FROM bench_bot WHERE tenant_idx = $1 AND idx = 0`, [WIDGET_TENANT]);
    // Seeded once per database (bench:profile reuses bench:compare's): later calls add a key only.
    const { rowCount: seeded } = await db.query(`SELECT 1 FROM "KnowledgeDocument" WHERE "botId" = $1 LIMIT 1`, [bot.id]);
    if (!seeded) await seedPassages(db, tenant, bot);
    // One visitor from one address sends every request of the run: their limits must not be what is measured.
    await db.query(
      `UPDATE "Tenant" SET "visitorMessageLimit" = 1000, "visitorMessageWindowSeconds" = 1, "widgetRepliesPerIpPerDay" = 100000000 WHERE id = $1`,
      [tenant.id],
    );
    const key = await insertPublicKey(db, tenant.id, 'bench widget');
    return { tenantId: tenant.id, botId: bot.id, publicKey: key };
  });
}

/** The bot's 500 documents of 20 passages. */
async function seedPassages(db, tenant, bot) {
  await db.query(`UPDATE "Bot" SET "language" = 'en', "isActive" = true WHERE id = $1`, [bot.id]);
  await db.query(
    `INSERT INTO "KnowledgeDocument" (id, "tenantId", "botId", title, content, characters, "createdAt", "updatedAt")
     SELECT gen_random_uuid(), $1, $2, initcap(t.topic) || ' guide ' || g, 'generated', 9, now(), now()
     FROM generate_series(1, ${DOCUMENTS}) g CROSS JOIN LATERAL (SELECT ($3::text[])[1 + g % ${TOPICS.length}] AS topic) t`,
    [tenant.id, bot.id, TOPICS],
  );
  await db.query(
    `INSERT INTO "KnowledgeChunk" (id, "tenantId", "botId", "documentId", position, content, "searchVector")
     SELECT gen_random_uuid(), d."tenantId", d."botId", d.id, p - 1, c.content, knowledge_chunk_vector('en', d.title, c.content)
     FROM "KnowledgeDocument" d CROSS JOIN generate_series(1, ${PASSAGES_PER_DOCUMENT}) p
     CROSS JOIN LATERAL (SELECT 'Section ' || p || ' of ' || d.title || ': customers ask about ' || lower(d.title) || ' and how long an order takes' ||
       '. Orders ship within ' || (1 + p % 5) || ' business days; express delivery costs ' || (5 + p % 10) || ' EUR and standard delivery to Germany takes ' || (1 + p % 3) ||
       ' days. Our team answers questions about plans, refunds and invoices in passage ' || p || '.' AS content) c
     WHERE d."botId" = $1`,
    [bot.id],
  );
}

/** A new public key of the tenant (the widget's), stored as the service stores one; the key itself. */
export async function insertPublicKey(db, tenantId, name) {
  const key = generateApiKey('public');
  await db.query(
    `INSERT INTO "ApiKey" (id, "tenantId", name, type, scopes, digest, prefix, last4, "createdAt") VALUES (gen_random_uuid(), $1, $2, 'public', '{}', $3, 'svc_pk_', $4, now())`,
    [tenantId, name, createHmac('sha256', BENCH_PEPPER).update(key).digest('hex'), key.slice(-4)],
  );
  return key;
}

/** A visitor's session and conversation, opened through the service's widget API. */
export async function openConversation(baseUrl, { botId, publicKey }) {
  const call = async (path, body, token) => {
    const response = await fetch(`${baseUrl}/api/v1/widget${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': publicKey, 'X-Forwarded-Proto': 'https', 'Content-Type': 'application/json', ...(token ? { 'X-Visitor-Token': token } : {}) },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`widget ${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  const { visitorToken } = await call('/sessions', { botId });
  const { conversation } = await call('/conversations', {}, visitorToken);
  return { token: visitorToken, conversationId: conversation.id };
}

/** The scenario as run.mjs measures it (autocannon options with the visitor's token). */
export function widgetScenario({ publicKey }, { token, conversationId }) {
  return {
    name: 'widget: send a message, get the reply (10,000 passages)',
    path: `/api/v1/widget/conversations/${conversationId}/messages`,
    method: 'POST',
    key: publicKey,
    headers: { 'X-Visitor-Token': token },
    body: { content: WIDGET_QUESTION },
  };
}

/** A conversation of the API channel (a tenant's own messenger), opened with a secret key holding conversations:write. */
export async function openApiConversation(baseUrl, { botId, secretKey }) {
  const response = await fetch(`${baseUrl}/api/v1/conversations`, {
    method: 'POST',
    headers: { 'X-API-Key': secretKey, 'X-Forwarded-Proto': 'https', 'Content-Type': 'application/json' },
    body: JSON.stringify({ botId, externalId: 'bench-bridge-user' }),
  });
  if (response.status !== 201) throw new Error(`POST /api/v1/conversations answered ${response.status}: ${await response.text()}`);
  return (await response.json()).conversation.id;
}

/** The widget's message through the API channel: the same question to the same bot, the caller a secret key. */
export function apiChannelScenario({ secretKey }, conversationId) {
  return {
    name: 'API channel: send a message, get the reply (10,000 passages)',
    path: `/api/v1/conversations/${conversationId}/visitor-messages`,
    method: 'POST',
    key: secretKey,
    body: { content: WIDGET_QUESTION },
  };
}
