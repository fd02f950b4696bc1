import { createTestApp, TestApp } from '../support/create-test-app';
import { widgetAsker, type WidgetReply } from '../support/widget-questions';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { FakeEmbeddingsServer } from '../support/fake-embeddings-server';
import { E2E_DATABASE_URL, openTestDatabase } from '../support/test-database';

type Reply = WidgetReply;

/** Concepts the fake model knows: a question and a passage that share one are near in meaning. */
const CONCEPTS = {
  money: ['expensive', 'cheap', 'price', 'pricing', 'billed', 'euros', 'cost', 'pay'],
  subscription: ['subscription', 'plan', 'plans'],
  parcel: ['parcel', 'package', 'shipping', 'shipped', 'orders', 'order'],
  arrival: ['arrive', 'arrives', 'delivered', 'delivery', 'days'],
};

const PRICING = 'The Pro plan is billed at 49 euros per month, invoiced at the start of each period.';
const SUPPORT = 'Our support team answers emails within one working day, Monday to Friday.';
/** Shares no word with either passage (WordNet's synonyms included): only its meaning matches PRICING. */
const PARAPHRASE = 'How expensive is a subscription?';
const KEYWORD = 'When does the support team answer emails?';

describe('Knowledge base: the semantic step (EMBEDDINGS_*)', () => {
  let fake: FakeEmbeddingsServer;
  let t: TestApp;
  /** A second instance on the same database: both workers claim from one queue. */
  let second: TestApp;
  let tenant: TestTenant;
  let publicKey: string;
  /** The tenants whose passages the workers embed (filled as they are made). */
  const tenantIds: string[] = [];

  beforeAll(async () => {
    fake = await new FakeEmbeddingsServer(CONCEPTS).start();
    const env = { EMBEDDINGS_BASE_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed-1', EMBEDDINGS_API_KEY: 'embed-key-123', EMBEDDINGS_TIMEOUT_MS: '300' };
    // On PostgreSQL the suites share one database: these workers embed only this file's tenants' passages.
    const embeddings = { pollMs: 50, firstRetryMs: 200, maxRetryMs: 400, batchSize: 4, tenantIds };
    t = await createTestApp(env, { embeddings });
    // Its own pool on PostgreSQL (another instance); the same embedded database otherwise.
    second = await createTestApp(env, { embeddings, connection: process.env[E2E_DATABASE_URL] ? await openTestDatabase() : t.connection });
    tenant = await createTenant(t, { plan: 'enterprise' });
    tenantIds.push(tenant.id);
    publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    await t
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', tenant.key)
      .send({ visitorMessageLimit: { messages: 1000 } })
      .expect(200);
  });
  afterEach(() => {
    fake.passages = 'ok';
    fake.questions = 'ok';
  });
  afterAll(async () => {
    await second.close();
    if (second.connection !== t.connection) await second.connection.close();
    await t.close();
    await fake.stop();
  });

  const addDocument = async (botId: string, title: string, content: string, tenantId = tenant.id): Promise<string> =>
    (await t.admin().post(`/admin/v1/tenants/${tenantId}/bots/${botId}/documents`).send({ title, content }).expect(201)).body.document.id;

  const askAs = widgetAsker(() => t);
  const ask = (botId: string, question: string, key = publicKey): Promise<Reply> => askAs(key, botId, question);

  /** The document's passages and their embedding rows. */
  const embeddingsOf = (documentId: string) =>
    t.prisma.$queryRaw<
      { chunkId: string; model: string | null; attempts: number; pending: boolean; type: string; dimensions: number | null; length: number | null }[]
    >`
      SELECT e."chunkId"::text AS "chunkId", e."model", e."attempts", e."nextAttemptAt" IS NOT NULL AS "pending",
             pg_typeof(e."vector")::text AS "type", array_length(e."vector", 1) AS "dimensions",
             (SELECT sqrt(sum(v * v)) FROM unnest(e."vector") AS v)::float8 AS "length"
      FROM "KnowledgeChunk" c JOIN "KnowledgeChunkEmbedding" e ON e."chunkId" = c."id"
      WHERE c."documentId" = ${documentId}::uuid ORDER BY c."position"`;

  /** Waits (polling) until every passage of the document is embedded by the worker. */
  const embedded = async (documentId: string) => {
    for (let i = 0; i < 200; i++) {
      const rows = await embeddingsOf(documentId);
      if (rows.length && rows.every((row) => !row.pending && row.model)) return rows;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`document ${documentId} was not embedded`);
  };

  it('answers a paraphrase with no shared word from the right passage once it is embedded; before, by words only', async () => {
    const bot = (await createBot(t, tenant.id, { language: 'en' })).id;
    fake.passages = 'fail';
    const pricing = await addDocument(bot, 'Pricing', PRICING);
    const support = await addDocument(bot, 'Support hours', SUPPORT);

    // Searchable by words at once; the paraphrase finds nothing yet.
    expect((await ask(bot, KEYWORD)).sources).toEqual([{ id: support, title: 'Support hours' }]);
    expect(await ask(bot, PARAPHRASE)).toEqual(expect.objectContaining({ sources: [] }));

    // The failing endpoint is retried with backoff: attempts counted, the passages still queued.
    for (let i = 0; i < 100 && !(await embeddingsOf(pricing)).some((row) => row.attempts >= 2); i++) await new Promise((r) => setTimeout(r, 50));
    expect((await embeddingsOf(pricing)).every((row) => row.pending && row.model === null)).toBe(true);
    expect((await embeddingsOf(pricing))[0].attempts).toBeGreaterThanOrEqual(2);

    fake.passages = 'ok';
    await embedded(pricing);
    await embedded(support);
    const reply = await ask(bot, PARAPHRASE);
    expect(reply.sources).toEqual([{ id: pricing, title: 'Pricing' }]);
    expect(reply.content).toBe(PRICING);
    // The keyword question still gets its passage first.
    expect((await ask(bot, KEYWORD)).sources[0]).toEqual({ id: support, title: 'Support hours' });
    // The endpoint got the model, the key, and each passage with its title.
    expect(fake.requests).toContainEqual({
      model: 'fake-embed-1',
      input: expect.arrayContaining([`Pricing\n\n${PRICING}`]),
      authorization: 'Bearer embed-key-123',
    });
  });

  it('stores each vector as a real[] of unit length, one row per passage', async () => {
    const bot = (await createBot(t, tenant.id)).id;
    const long = Array.from({ length: 40 }, (_, i) => `Order ${i} is shipped from our warehouse the same day.`).join(' ');
    const documentId = await addDocument(bot, 'Shipping', `${long}\n\n${PRICING}`);
    const rows = await embedded(documentId);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row).toEqual(expect.objectContaining({ model: 'fake-embed-1', attempts: 0, type: 'real[]', dimensions: 256 }));
      expect(row.length).toBeCloseTo(1, 5);
    }
  });

  it('embeds a changed document again, and answers from its new text only', async () => {
    const bot = (await createBot(t, tenant.id)).id;
    const documentId = await addDocument(bot, 'Costs', PRICING);
    const before = await embedded(documentId);
    expect((await ask(bot, PARAPHRASE)).sources).toEqual([{ id: documentId, title: 'Costs' }]);

    await t
      .http()
      .patch(`/api/v1/bots/${bot}/documents/${documentId}`)
      .set('X-API-Key', tenant.key)
      .send({ content: 'Orders are shipped within two days by courier.' })
      .expect(200);
    const after = await embedded(documentId);
    expect(after.map((row) => row.chunkId)).not.toEqual(before.map((row) => row.chunkId));
    expect(
      (
        await t.prisma.$queryRaw<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM "KnowledgeChunkEmbedding" WHERE "chunkId" = ANY(${before.map((row) => row.chunkId)}::uuid[])`
      )[0].n,
    ).toBe(0);

    const reply = await ask(bot, 'When will my package arrive?');
    expect(reply.sources).toEqual([{ id: documentId, title: 'Costs' }]);
    expect(reply.content).toBe('Orders are shipped within two days by courier.');
    expect((await ask(bot, PARAPHRASE)).sources).toEqual([]);
  });

  it.each([
    ['answers 500', 'fail'],
    ['does not answer within EMBEDDINGS_TIMEOUT_MS', 'hang'],
  ] as const)('falls back to the word search when the endpoint %s at answer time', async (_name, behaviour) => {
    const bot = (await createBot(t, tenant.id)).id;
    const pricing = await addDocument(bot, 'Pricing', PRICING);
    const support = await addDocument(bot, 'Support hours', SUPPORT);
    await embedded(pricing);
    await embedded(support);

    fake.questions = behaviour;
    expect(await ask(bot, KEYWORD)).toEqual(expect.objectContaining({ content: SUPPORT, sources: [{ id: support, title: 'Support hours' }] }));
    expect((await ask(bot, PARAPHRASE)).sources).toEqual([]);
    fake.questions = 'ok';
    expect((await ask(bot, PARAPHRASE)).sources).toEqual([{ id: pricing, title: 'Pricing' }]);
  });

  it('embeds each passage once when two instances share the queue (SKIP LOCKED claims)', async () => {
    const bot = (await createBot(t, tenant.id)).id;
    const paragraphs = Array.from({ length: 24 }, (_, i) => `Paragraph ${i}: ${'our warehouse ships every order quickly. '.repeat(18)}`);
    const documentId = await addDocument(bot, 'Warehouse handbook', paragraphs.join('\n\n'));
    const rows = await embedded(documentId);
    expect(rows.length).toBeGreaterThanOrEqual(12);
    const sent = fake.requests.flatMap((request) => request.input).filter((text) => text.startsWith('Warehouse handbook\n\n'));
    expect(sent).toHaveLength(rows.length);
    expect(new Set(sent).size).toBe(rows.length);
  });

  it("never answers from another bot's or another tenant's passages", async () => {
    const other = await createTenant(t, { plan: 'enterprise' });
    tenantIds.push(other.id);
    const theirs = await addDocument((await createBot(t, other.id)).id, 'Pricing', PRICING, other.id);
    const sibling = await addDocument((await createBot(t, tenant.id)).id, 'Pricing', PRICING);
    await embedded(theirs);
    await embedded(sibling);

    const bot = (await createBot(t, tenant.id)).id;
    const support = await addDocument(bot, 'Support hours', SUPPORT);
    await embedded(support);
    expect((await ask(bot, PARAPHRASE)).sources).toEqual([]);
  });
});
