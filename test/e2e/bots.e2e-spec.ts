import { randomUUID } from 'node:crypto';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createTenant, recordConversation, TestTenant } from '../support/factories';

const BOT_FIELDS = [
  'avatarUrl',
  'conversationCount',
  'createdAt',
  'id',
  'isActive',
  'knowledgeBaseSize',
  'language',
  'messageCount',
  'name',
  'primaryColor',
  'updatedAt',
];

type BotBody = Record<string, unknown> & { id: string };

/** Every field of SPEC 2.1, with its exact JSON type. */
function expectBotShape(bot: Record<string, unknown>): void {
  expect(Object.keys(bot).sort()).toEqual(BOT_FIELDS);
  expect(bot.id).toMatch(UUID);
  expect(typeof bot.name).toBe('string');
  expect(typeof bot.isActive).toBe('boolean');
  expect(bot.avatarUrl === null || typeof bot.avatarUrl === 'string').toBe(true);
  expect(bot.primaryColor).toMatch(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/);
  expect(bot.language).toMatch(/^[a-z]{2}$/);
  for (const counter of ['messageCount', 'conversationCount', 'knowledgeBaseSize']) {
    expect(Number.isInteger(bot[counter])).toBe(true);
    expect(bot[counter] as number).toBeGreaterThanOrEqual(0);
  }
  expect(bot.createdAt).toMatch(ISO_MS);
  expect(bot.updatedAt).toMatch(ISO_MS);
}

// Fixtures are recorded through the admin API; a loaded machine can need more than the default 5 s.
jest.setTimeout(60_000);

describe('Bots API', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let emptyTenant: TestTenant;
  let alpha: BotBody;
  let beta: BotBody;
  let gamma: BotBody;
  let foreignBot: BotBody;
  const bots = () => t.http().get('/api/v1/bots').set('X-API-Key', tenant.key);
  const bot = (key: string, id: string) => t.http().get(`/api/v1/bots/${id}`).set('X-API-Key', key);

  /** Moves a bot's createdAt and returns its API shape as stored afterwards. */
  async function backdate(created: BotBody, createdAt: string): Promise<BotBody> {
    const row = await t.prisma.bot.update({ where: { id: created.id }, data: { createdAt: new Date(createdAt) } });
    return { ...created, createdAt, updatedAt: row.updatedAt.toISOString() };
  }

  beforeAll(async () => {
    t = await createTestApp();
    [tenant, otherTenant, emptyTenant] = await Promise.all([
      createTenant(t, { plan: 'enterprise' }),
      createTenant(t, { plan: 'enterprise' }),
      createTenant(t, { plan: 'enterprise' }),
    ]);
    const createdAlpha = (await createBot(t, tenant.id, {
      name: 'Alpha',
      primaryColor: '#ff5500',
      language: 'de',
      avatarUrl: 'https://cdn.example.com/alpha.png',
      isActive: true,
    })) as unknown as BotBody;
    const createdBeta = (await createBot(t, tenant.id, { name: 'Beta' })) as unknown as BotBody;
    const createdGamma = (await createBot(t, tenant.id, { name: 'Gamma', isActive: false })) as unknown as BotBody;
    // The creation order (alpha, beta, gamma) is neither the createdAt order nor its reverse.
    gamma = await backdate(createdGamma, '2025-01-01T00:00:00.000Z');
    alpha = await backdate(createdAlpha, '2025-02-01T08:30:00.250Z');
    beta = await backdate(createdBeta, '2025-03-01T00:00:00.000Z');
    foreignBot = (await createBot(t, otherTenant.id, { name: 'Foreign' })) as unknown as BotBody;
  });
  afterAll(() => t.close());

  describe('GET /api/v1/bots', () => {
    it('lists every bot of the tenant, oldest first, inactive ones included, with every field of SPEC 2.1', async () => {
      const response = await bots().expect(200);
      expect(response.body).toStrictEqual({
        bots: [
          {
            id: gamma.id,
            name: 'Gamma',
            isActive: false,
            avatarUrl: null,
            primaryColor: beta.primaryColor,
            language: beta.language,
            messageCount: 0,
            conversationCount: 0,
            knowledgeBaseSize: 0,
            createdAt: '2025-01-01T00:00:00.000Z',
            updatedAt: gamma.updatedAt,
          },
          {
            id: alpha.id,
            name: 'Alpha',
            isActive: true,
            avatarUrl: 'https://cdn.example.com/alpha.png',
            primaryColor: '#ff5500',
            language: 'de',
            messageCount: 0,
            conversationCount: 0,
            knowledgeBaseSize: 0,
            createdAt: '2025-02-01T08:30:00.250Z',
            updatedAt: alpha.updatedAt,
          },
          {
            id: beta.id,
            name: 'Beta',
            isActive: true,
            avatarUrl: null,
            primaryColor: beta.primaryColor,
            language: beta.language,
            messageCount: 0,
            conversationCount: 0,
            knowledgeBaseSize: 0,
            createdAt: '2025-03-01T00:00:00.000Z',
            updatedAt: beta.updatedAt,
          },
        ],
      });
      for (const entry of response.body.bots) expectBotShape(entry);
    });

    it('answers { bots: [] } for a tenant without bots', async () => {
      const response = await t.http().get('/api/v1/bots').set('X-API-Key', emptyTenant.key).expect(200);
      expect(response.body).toStrictEqual({ bots: [] });
    });

    it("never lists another tenant's bots", async () => {
      const response = await t.http().get('/api/v1/bots').set('X-API-Key', otherTenant.key).expect(200);
      expect(response.body.bots.map((entry: BotBody) => entry.id)).toEqual([foreignBot.id]);
    });

    it('rejects an unknown query parameter with 400 VALIDATION_ERROR', async () => {
      const response = await t.http().get('/api/v1/bots?limit=5').set('X-API-Key', tenant.key);
      expectError(response, 400, 'VALIDATION_ERROR', [{ field: 'limit', message: expect.any(String) }]);
    });

    it('needs the bots:read scope', async () => {
      const tenantWithoutScope = await createTenant(t, { plan: 'enterprise', scopes: ['leads:read', 'conversations:read'] });
      const response = await t.http().get('/api/v1/bots').set('X-API-Key', tenantWithoutScope.key);
      expectError(response, 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('GET /api/v1/bots/:id', () => {
    it('answers { bot } equal to its entry in the list, for active and inactive bots', async () => {
      const list = (await bots().expect(200)).body.bots as BotBody[];
      expect(list).toHaveLength(3);
      for (const entry of list) {
        const response = await bot(tenant.key, entry.id).expect(200);
        expect(response.body).toStrictEqual({ bot: entry });
      }
    });

    it('answers 404 NOT_FOUND for an unknown UUID', async () => {
      expectError(await bot(tenant.key, randomUUID()), 404, 'NOT_FOUND');
    });

    it('answers 404 NOT_FOUND for a malformed id', async () => {
      expectError(await bot(tenant.key, 'not-a-uuid'), 404, 'NOT_FOUND');
      expectError(await bot(tenant.key, `${alpha.id}x`), 404, 'NOT_FOUND');
    });

    it("answers 404 NOT_FOUND for another tenant's bot", async () => {
      expectError(await bot(tenant.key, foreignBot.id), 404, 'NOT_FOUND');
    });

    it('reflects the dashboard toggle of isActive, and the bot stays listed either way', async () => {
      const deactivated = await t.admin().patch(`/admin/v1/tenants/${otherTenant.id}/bots/${foreignBot.id}`).send({ isActive: false }).expect(200);
      expect(deactivated.body.bot.isActive).toBe(false);
      const inactive = await bot(otherTenant.key, foreignBot.id).expect(200);
      expect(inactive.body.bot.isActive).toBe(false);
      expect(inactive.body).toStrictEqual({ bot: deactivated.body.bot });
      const listedInactive = await t.http().get('/api/v1/bots').set('X-API-Key', otherTenant.key).expect(200);
      expect(listedInactive.body).toStrictEqual({ bots: [inactive.body.bot] });

      const activated = await t.admin().patch(`/admin/v1/tenants/${otherTenant.id}/bots/${foreignBot.id}`).send({ isActive: true }).expect(200);
      const active = await bot(otherTenant.key, foreignBot.id).expect(200);
      expect(active.body.bot.isActive).toBe(true);
      expect(active.body).toStrictEqual({ bot: activated.body.bot });
      const listedActive = await t.http().get('/api/v1/bots').set('X-API-Key', otherTenant.key).expect(200);
      expect(listedActive.body).toStrictEqual({ bots: [active.body.bot] });
    });
  });

  describe('counters', () => {
    let counted: TestTenant;
    let busy: BotBody;
    let quiet: BotBody;
    let firstConversationId: string;

    /** The counters as the API itself counts them, from the conversations and messages endpoints. */
    async function countedByApi(botId: string): Promise<{ messageCount: number; conversationCount: number }> {
      const list = await t.http().get(`/api/v1/conversations?botId=${botId}&limit=100`).set('X-API-Key', counted.key).expect(200);
      expect(list.body.pagination.hasMore).toBe(false);
      let messageCount = 0;
      for (const conversation of list.body.conversations as { id: string }[]) {
        const messages = await t.http().get(`/api/v1/conversations/${conversation.id}/messages`).set('X-API-Key', counted.key).expect(200);
        messageCount += messages.body.pagination.total as number;
      }
      return { messageCount, conversationCount: list.body.pagination.total };
    }

    async function counters(botId: string): Promise<{ messageCount: number; conversationCount: number; knowledgeBaseSize: number }> {
      const single = (await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', counted.key).expect(200)).body.bot;
      const listed = ((await t.http().get('/api/v1/bots').set('X-API-Key', counted.key).expect(200)).body.bots as BotBody[]).find(
        (entry) => entry.id === botId,
      );
      expect(listed).toStrictEqual(single);
      return { messageCount: single.messageCount, conversationCount: single.conversationCount, knowledgeBaseSize: single.knowledgeBaseSize };
    }

    const messages = (count: number) => Array.from({ length: count }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `message ${index}` }));

    beforeAll(async () => {
      counted = await createTenant(t, { plan: 'enterprise' });
      busy = (await createBot(t, counted.id, { name: 'Busy' })) as unknown as BotBody;
      quiet = (await createBot(t, counted.id, { name: 'Quiet' })) as unknown as BotBody;
      firstConversationId = (await recordConversation(t, counted.id, busy.id, { messages: messages(3) })).id;
      await recordConversation(t, counted.id, busy.id, { messages: [] });
      await recordConversation(t, counted.id, busy.id, {
        status: 'ended',
        messages: messages(5),
        lead: { name: 'Counted Lead', email: 'counted@example.com' },
      });
      await recordConversation(t, counted.id, quiet.id, { messages: messages(4) });
      for (const title of ['Pricing', 'Opening hours']) {
        await t
          .admin()
          .post(`/admin/v1/tenants/${counted.id}/bots/${busy.id}/documents`)
          .send({ title, content: `All about ${title}.` })
          .expect(201);
      }
    });

    it('equal what the API counts after conversations, messages and documents are added', async () => {
      expect(await counters(busy.id)).toStrictEqual({ messageCount: 8, conversationCount: 3, knowledgeBaseSize: 2 });
      expect(await counters(busy.id)).toStrictEqual({ ...(await countedByApi(busy.id)), knowledgeBaseSize: 2 });
      expect(await counters(quiet.id)).toStrictEqual({ messageCount: 4, conversationCount: 1, knowledgeBaseSize: 0 });
      expect(await counters(quiet.id)).toStrictEqual({ ...(await countedByApi(quiet.id)), knowledgeBaseSize: 0 });
    });

    it('follow a conversation deleted directly in the database', async () => {
      await t.prisma.conversation.delete({ where: { id: firstConversationId } });
      expect(await counters(busy.id)).toStrictEqual({ messageCount: 5, conversationCount: 2, knowledgeBaseSize: 2 });
      expect(await counters(busy.id)).toStrictEqual({ ...(await countedByApi(busy.id)), knowledgeBaseSize: 2 });
      expect(await counters(quiet.id)).toStrictEqual({ messageCount: 4, conversationCount: 1, knowledgeBaseSize: 0 });
    });

    it('follow a conversation recorded after a deletion', async () => {
      await recordConversation(t, counted.id, busy.id, { messages: messages(6) });
      expect(await counters(busy.id)).toStrictEqual({ messageCount: 11, conversationCount: 3, knowledgeBaseSize: 2 });
      expect(await counters(busy.id)).toStrictEqual({ ...(await countedByApi(busy.id)), knowledgeBaseSize: 2 });
    });

    it('follow messages and documents deleted directly in the database', async () => {
      const message = await t.prisma.message.findFirstOrThrow({ where: { tenantId: counted.id, conversation: { botId: busy.id } } });
      await t.prisma.message.delete({ where: { id: message.id } });
      const document = await t.prisma.knowledgeDocument.findFirstOrThrow({ where: { tenantId: counted.id, botId: busy.id } });
      await t.prisma.knowledgeDocument.delete({ where: { id: document.id } });
      expect(await counters(busy.id)).toStrictEqual({ messageCount: 10, conversationCount: 3, knowledgeBaseSize: 1 });
      expect(await counters(busy.id)).toStrictEqual({ ...(await countedByApi(busy.id)), knowledgeBaseSize: 1 });
    });
  });
});
