import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createTenant, recordConversation, TestTenant } from '../support/factories';

const CONVERSATION_FIELDS = [
  'assigneeId',
  'botId',
  'channel',
  'createdAt',
  'endedAt',
  'handedOffAt',
  'id',
  'lastMessageAt',
  'leadId',
  'messageCount',
  'status',
  'updatedAt',
  'visitor',
  'visitorId',
  'waitingSince',
];
const MESSAGE_FIELDS = ['content', 'conversationId', 'createdAt', 'id', 'role'];
const TIE_TIME = '2026-01-25T06:00:00.000Z';

type Body = Record<string, any>;

interface Fixture {
  id: string;
  botId: string;
  status: 'active' | 'ended' | 'handed_off';
  createdAt: string;
}

function expectValidationError(response: Response, field: string): void {
  expectError(response, 400, 'VALIDATION_ERROR', [{ field, message: expect.any(String) }]);
}

/** The Conversation shape of API_DECISIONS with its exact JSON types. */
function expectConversationShape(conversation: Body): void {
  expect(Object.keys(conversation).sort()).toEqual(CONVERSATION_FIELDS);
  expect(conversation.id).toMatch(UUID);
  expect(conversation.botId).toMatch(UUID);
  expect(['active', 'ended', 'handed_off']).toContain(conversation.status);
  expect(['widget', 'api']).toContain(conversation.channel);
  expect(conversation.visitorId === null || typeof conversation.visitorId === 'string').toBe(true);
  if (conversation.visitorId === null) expect(conversation.visitor).toBeNull();
  else expect(conversation.visitor).toMatchObject({ id: conversation.visitorId, verified: expect.any(Boolean) });
  if (conversation.leadId !== null) expect(conversation.leadId).toMatch(UUID);
  expect(Number.isInteger(conversation.messageCount)).toBe(true);
  if (conversation.lastMessageAt !== null) expect(conversation.lastMessageAt).toMatch(ISO_MS);
  if (conversation.endedAt !== null) expect(conversation.endedAt).toMatch(ISO_MS);
  expect(conversation.createdAt).toMatch(ISO_MS);
  expect(conversation.updatedAt).toMatch(ISO_MS);
}

/** Newest first, equal createdAt broken by id, descending (API_DECISIONS). */
function newestFirst(a: Fixture, b: Fixture): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : -1;
}

const ids = (response: Response): string[] => (response.body.conversations ?? response.body.messages).map((entry: Body) => entry.id);

// Fixtures are recorded through the admin API; a loaded machine can need more than the default 5 s.
jest.setTimeout(60_000);

describe('Conversations API', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let botA: string;
  let botB: string;
  let foreignBot: string;
  let foreignConversation: string;
  const all: Fixture[] = [];
  let cA1: Fixture;
  let cA2: Fixture;
  let cB1: Fixture;
  let cA3: Fixture;
  let cB2: Fixture;

  const get = (url: string, key = tenant.key) => t.http().get(url).set('X-API-Key', key);
  const expected = (filter: (conversation: Fixture) => boolean = () => true) =>
    all
      .filter(filter)
      .sort(newestFirst)
      .map((conversation) => conversation.id);

  async function record(botId: string, body: Body): Promise<Fixture> {
    const conversation = await recordConversation(t, tenant.id, botId, body);
    const fixture: Fixture = { id: conversation.id, botId, status: body.status ?? 'active', createdAt: body.createdAt };
    all.push(fixture);
    return fixture;
  }

  beforeAll(async () => {
    t = await createTestApp();
    [tenant, otherTenant] = await Promise.all([createTenant(t, { plan: 'enterprise' }), createTenant(t, { plan: 'enterprise' })]);
    botA = (await createBot(t, tenant.id, { name: 'Bot A' })).id;
    botB = (await createBot(t, tenant.id, { name: 'Bot B' })).id;
    foreignBot = (await createBot(t, otherTenant.id, { name: 'Foreign' })).id;
    foreignConversation = (await recordConversation(t, otherTenant.id, foreignBot, { createdAt: '2026-01-20T00:00:00.000Z' })).id;

    cA1 = await record(botA, {
      status: 'active',
      channel: 'widget',
      visitorId: 'visitor-1',
      createdAt: '2026-01-10T10:00:00.000Z',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi! How can I help?' },
      ],
    });
    cA2 = await record(botA, {
      status: 'ended',
      createdAt: '2026-01-15T12:00:00.000Z',
      messages: [
        { role: 'user', content: 'I would like a quote', createdAt: '2026-01-15T12:00:05.000Z' },
        { role: 'assistant', content: 'Sure, what is your e-mail?', createdAt: '2026-01-15T12:03:00.500Z' },
        { role: 'user', content: 'grace@example.com', createdAt: '2026-01-15T12:01:00.000Z' },
      ],
      lead: { name: 'Grace Hopper', email: 'grace@example.com', phone: '+1 555 0100', company: 'Navy', message: 'Please call me' },
    });
    cB1 = await record(botB, {
      status: 'handed_off',
      channel: 'api',
      createdAt: '2026-01-20T00:00:00.000Z',
      messages: [
        { role: 'user', content: 'I need a human', createdAt: '2026-01-20T00:00:01.000Z' },
        { role: 'agent', content: 'Hi, this is Sam from support.', createdAt: '2026-01-20T00:05:00.000Z' },
      ],
    });
    cA3 = await record(botA, { status: 'active', createdAt: '2026-01-31T23:59:59.999Z', messages: [] });
    cB2 = await record(botB, {
      status: 'ended',
      createdAt: '2026-02-01T00:00:00.000Z',
      messages: [{ role: 'user', content: 'Bye', createdAt: '2026-02-01T00:00:10.000Z' }],
    });
    const ties = [
      await record(botA, { status: 'active', createdAt: '2026-01-05T00:00:00.000Z', messages: [] }),
      await record(botB, { status: 'ended', createdAt: '2026-01-06T00:00:00.000Z', messages: [] }),
      await record(botA, { status: 'handed_off', createdAt: '2026-01-07T00:00:00.000Z', messages: [] }),
    ];
    await t.prisma.conversation.updateMany({ where: { id: { in: ties.map((tie) => tie.id) } }, data: { createdAt: new Date(TIE_TIME) } });
    for (const tie of ties) tie.createdAt = TIE_TIME;
  });
  afterAll(() => t.close());

  describe('GET /api/v1/conversations', () => {
    it('lists the tenant’s conversations newest first, ties broken by id, with the Conversation shape', async () => {
      const response = await get('/api/v1/conversations').expect(200);
      expect(response.body).toStrictEqual({
        conversations: expect.any(Array),
        pagination: { total: 8, limit: 20, offset: 0, hasMore: false },
      });
      expect(ids(response)).toEqual(expected());
      for (const conversation of response.body.conversations) {
        expectConversationShape(conversation);
        expect(conversation.createdAt).toBe(all.find((fixture) => fixture.id === conversation.id)!.createdAt);
      }
    });

    it('answers every field with its recorded value', async () => {
      const list = (await get('/api/v1/conversations').expect(200)).body.conversations as Body[];
      const entry = (id: string) => list.find((conversation) => conversation.id === id);
      const lastMessageOf = async (id: string) => {
        const messages = (await get(`/api/v1/conversations/${id}/messages`).expect(200)).body.messages as Body[];
        return messages[messages.length - 1].createdAt;
      };

      expect(entry(cA1.id)).toStrictEqual({
        id: cA1.id,
        botId: botA,
        status: 'active',
        channel: 'widget',
        visitorId: 'visitor-1',
        visitor: { id: 'visitor-1', externalId: null, email: null, name: null, verified: false },
        leadId: null,
        messageCount: 2,
        lastMessageAt: await lastMessageOf(cA1.id),
        endedAt: null,
        handedOffAt: null,
        assigneeId: null,
        waitingSince: null,
        createdAt: '2026-01-10T10:00:00.000Z',
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(entry(cB1.id)).toStrictEqual({
        id: cB1.id,
        botId: botB,
        status: 'handed_off',
        channel: 'api',
        visitorId: null,
        visitor: null,
        leadId: null,
        messageCount: 2,
        lastMessageAt: '2026-01-20T00:05:00.000Z',
        endedAt: null,
        handedOffAt: null,
        assigneeId: null,
        waitingSince: null,
        createdAt: '2026-01-20T00:00:00.000Z',
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(entry(cA3.id)).toStrictEqual({
        id: cA3.id,
        botId: botA,
        status: 'active',
        channel: 'widget',
        visitorId: null,
        visitor: null,
        leadId: null,
        messageCount: 0,
        lastMessageAt: null,
        endedAt: null,
        handedOffAt: null,
        assigneeId: null,
        waitingSince: null,
        createdAt: '2026-01-31T23:59:59.999Z',
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(entry(cB2.id)).toMatchObject({
        status: 'ended',
        messageCount: 1,
        lastMessageAt: '2026-02-01T00:00:10.000Z',
        endedAt: expect.stringMatching(ISO_MS),
      });
    });

    it('links a conversation recorded with a lead to that widget lead; ended sets endedAt', async () => {
      const conversation = (await get(`/api/v1/conversations/${cA2.id}`).expect(200)).body.conversation;
      const messages = await get(`/api/v1/conversations/${cA2.id}/messages`).expect(200);
      expect(conversation).toStrictEqual({
        id: cA2.id,
        botId: botA,
        status: 'ended',
        channel: 'widget',
        visitorId: null,
        visitor: null,
        leadId: expect.stringMatching(UUID),
        messageCount: 3,
        lastMessageAt: '2026-01-15T12:03:00.500Z',
        endedAt: expect.stringMatching(ISO_MS),
        handedOffAt: null,
        assigneeId: null,
        waitingSince: null,
        createdAt: '2026-01-15T12:00:00.000Z',
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(conversation.messageCount).toBe(messages.body.pagination.total);
      expect(conversation.lastMessageAt).toBe(messages.body.messages[messages.body.messages.length - 1].createdAt);
      expect(Date.parse(conversation.endedAt)).toBeGreaterThanOrEqual(Date.parse(conversation.createdAt));

      const lead = await get(`/api/v1/leads/${conversation.leadId}`).expect(200);
      expect(lead.body).toStrictEqual({
        lead: {
          id: conversation.leadId,
          name: 'Grace Hopper',
          email: 'grace@example.com',
          phone: '+1 555 0100',
          company: 'Navy',
          message: 'Please call me',
          botId: botA,
          conversationId: cA2.id,
          source: 'widget',
          status: 'new',
          tags: [],
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: expect.stringMatching(ISO_MS),
        },
      });
    });

    it.each([1, 3])('walks every page with limit=%i without duplicates or gaps', async (limit) => {
      const seen: string[] = [];
      for (let offset = 0; ; offset += limit) {
        const response = await get(`/api/v1/conversations?limit=${limit}&offset=${offset}`).expect(200);
        const hasMore = offset + limit < 8;
        expect(response.body.pagination).toStrictEqual({ total: 8, limit, offset, hasMore });
        expect(response.body.conversations).toHaveLength(Math.min(limit, 8 - offset));
        seen.push(...ids(response));
        if (!hasMore) break;
      }
      expect(seen).toEqual(expected());
      expect(new Set(seen).size).toBe(8);
    });

    it('answers an empty page past the end', async () => {
      const response = await get('/api/v1/conversations?offset=8').expect(200);
      expect(response.body).toStrictEqual({ conversations: [], pagination: { total: 8, limit: 20, offset: 8, hasMore: false } });
    });

    it('accepts the limit bounds 1 and 100', async () => {
      const one = await get('/api/v1/conversations?limit=1').expect(200);
      expect(ids(one)).toEqual(expected().slice(0, 1));
      expect(one.body.pagination).toStrictEqual({ total: 8, limit: 1, offset: 0, hasMore: true });
      const hundred = await get('/api/v1/conversations?limit=100').expect(200);
      expect(ids(hundred)).toEqual(expected());
      expect(hundred.body.pagination).toStrictEqual({ total: 8, limit: 100, offset: 0, hasMore: false });
    });

    it('pages 20 at a time by default', async () => {
      const many = await createTenant(t, { plan: 'enterprise' });
      const bot = (await createBot(t, many.id)).id;
      for (let index = 0; index < 21; index += 1) await recordConversation(t, many.id, bot, { messages: [] });
      const first = await get('/api/v1/conversations', many.key).expect(200);
      expect(first.body.conversations).toHaveLength(20);
      expect(first.body.pagination).toStrictEqual({ total: 21, limit: 20, offset: 0, hasMore: true });
      const second = await get('/api/v1/conversations?offset=20', many.key).expect(200);
      expect(second.body.conversations).toHaveLength(1);
      expect(second.body.pagination).toStrictEqual({ total: 21, limit: 20, offset: 20, hasMore: false });
      expect(new Set([...ids(first), ...ids(second)]).size).toBe(21);
    });

    describe('filters', () => {
      const cases: [string, string, (conversation: Fixture) => boolean][] = [
        ['botId of bot A', 'botId=BOT_A', (c) => c.botId === botA],
        ['botId of bot B', 'botId=BOT_B', (c) => c.botId === botB],
        ['status=active', 'status=active', (c) => c.status === 'active'],
        ['status=ended', 'status=ended', (c) => c.status === 'ended'],
        ['status=handed_off', 'status=handed_off', (c) => c.status === 'handed_off'],
        ['from, inclusive', 'from=2026-01-15T12:00:00.000Z', (c) => c.createdAt >= '2026-01-15T12:00:00.000Z'],
        ['from one millisecond later', 'from=2026-01-15T12:00:00.001Z', (c) => c.createdAt > '2026-01-15T12:00:00.000Z'],
        ['to, inclusive', 'to=2026-01-20T00:00:00.000Z', (c) => c.createdAt <= '2026-01-20T00:00:00.000Z'],
        ['to with a time-zone offset', 'to=2026-01-20T01:00:00%2B01:00', (c) => c.createdAt <= '2026-01-20T00:00:00.000Z'],
        ['from and to', 'from=2026-01-15T12:00:00.000Z&to=2026-01-20T00:00:00.000Z', (c) => c.id === cA2.id || c.id === cB1.id],
        ['from equal to to', 'from=2026-01-20T00:00:00.000Z&to=2026-01-20T00:00:00.000Z', (c) => c.id === cB1.id],
        ['a date-only to covering its whole day', 'to=2026-01-31', (c) => c.id !== cB2.id],
        ['a date-only from', 'from=2026-02-01', (c) => c.id === cB2.id],
        ['botId and status', 'botId=BOT_A&status=active', (c) => c.botId === botA && c.status === 'active'],
        [
          'botId, from and to',
          'botId=BOT_B&from=2026-01-20&to=2026-01-31',
          (c) => c.botId === botB && c.createdAt >= '2026-01-20' && c.createdAt < '2026-02-01',
        ],
        [
          'status, from and to',
          'status=ended&from=2026-01-15T12:00:00.000Z&to=2026-01-25T06:00:00.000Z',
          (c) => c.status === 'ended' && c.createdAt <= TIE_TIME,
        ],
        ['a range with no conversation', 'from=2026-03-01&to=2026-03-31', () => false],
      ];

      it.each(cases)('filters by %s', async (_name, query, filter) => {
        const response = await get(`/api/v1/conversations?${query.replace('BOT_A', botA).replace('BOT_B', botB)}`).expect(200);
        const want = expected(filter);
        expect(ids(response)).toEqual(want);
        expect(response.body.pagination).toStrictEqual({ total: want.length, limit: 20, offset: 0, hasMore: false });
      });

      it('combines every filter with paging', async () => {
        const response = await get(`/api/v1/conversations?botId=${botA}&status=active&from=2026-01-01&to=2026-12-31&limit=1&offset=1`).expect(200);
        const want = expected((c) => c.botId === botA && c.status === 'active');
        expect(want).toHaveLength(3);
        expect(ids(response)).toEqual(want.slice(1, 2));
        expect(response.body.pagination).toStrictEqual({ total: 3, limit: 1, offset: 1, hasMore: true });
      });

      it("answers an empty page for another tenant's bot or an unknown bot", async () => {
        for (const botId of [foreignBot, randomUUID()]) {
          const response = await get(`/api/v1/conversations?botId=${botId}`).expect(200);
          expect(response.body).toStrictEqual({ conversations: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
        }
      });

      it('rejects a botId that is not a UUID', async () => {
        expectValidationError(await get('/api/v1/conversations?botId=bot-a'), 'botId');
      });

      it.each(['closed', 'ACTIVE', 'handed-off'])('rejects status=%s', async (status) => {
        expectValidationError(await get(`/api/v1/conversations?status=${status}`), 'status');
      });

      it.each(['from', 'to'])('rejects an invalid %s', async (name) => {
        for (const value of ['yesterday', '2026-13-01', '2026-02-30', '2026-01-20T25:00:00Z']) {
          expectValidationError(await get(`/api/v1/conversations?${name}=${value}`), name);
        }
      });

      it('rejects from later than to', async () => {
        const response = await get('/api/v1/conversations?from=2026-01-20T00:00:00.001Z&to=2026-01-20T00:00:00.000Z');
        expectError(response, 400, 'VALIDATION_ERROR', [{ field: expect.stringMatching(/^(from|to)$/), message: expect.any(String) }]);
      });
    });

    describe('validation', () => {
      it.each(['abc', '1.5', '0', '101', '-1', ''])('rejects limit=%s', async (limit) => {
        expectValidationError(await get(`/api/v1/conversations?limit=${limit}`), 'limit');
      });

      it.each(['abc', '1.5', '-1', ''])('rejects offset=%s', async (offset) => {
        expectValidationError(await get(`/api/v1/conversations?offset=${offset}`), 'offset');
      });

      it.each(['foo=bar', 'search=hello', 'sort=createdAt'])('rejects the unknown parameter in %s', async (query) => {
        expectValidationError(await get(`/api/v1/conversations?${query}`), query.split('=')[0]);
      });
    });

    it("never lists another tenant's conversations", async () => {
      const response = await get('/api/v1/conversations', otherTenant.key).expect(200);
      expect(ids(response)).toEqual([foreignConversation]);
      expect(response.body.pagination.total).toBe(1);
    });

    it('needs the conversations:read scope', async () => {
      const limited = await createTenant(t, { plan: 'enterprise', scopes: ['bots:read', 'leads:read'] });
      expectError(await get('/api/v1/conversations', limited.key), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('GET /api/v1/conversations/:id', () => {
    it('answers { conversation } equal to its entry in the list', async () => {
      const list = (await get('/api/v1/conversations').expect(200)).body.conversations as Body[];
      expect(list).toHaveLength(8);
      for (const entry of list) {
        const response = await get(`/api/v1/conversations/${entry.id}`).expect(200);
        expect(response.body).toStrictEqual({ conversation: entry });
      }
    });

    it("answers 404 NOT_FOUND for an unknown UUID, a malformed id and another tenant's conversation", async () => {
      for (const id of [randomUUID(), 'not-a-uuid', `${cA1.id}0`, foreignConversation]) {
        expectError(await get(`/api/v1/conversations/${id}`), 404, 'NOT_FOUND');
      }
    });

    it('rejects an unknown query parameter', async () => {
      expectValidationError(await get(`/api/v1/conversations/${cA1.id}?expand=messages`), 'expand');
    });
  });

  describe('GET /api/v1/conversations/:id/messages', () => {
    const BASE = Date.parse('2026-03-01T09:00:00.000Z');
    const ROLES = ['user', 'assistant', 'agent'];
    let chat: TestTenant;
    let longConversation: string;
    let tieConversation: string;
    let emptyConversation: string;
    const longMessages = Array.from({ length: 60 }, (_, index) => ({
      role: ROLES[index % 3],
      content: `message ${index}`,
      createdAt: new Date(BASE + index * 1000).toISOString(),
    }));
    const messagesUrl = (id: string, query = '') => `/api/v1/conversations/${id}/messages${query}`;

    beforeAll(async () => {
      chat = await createTenant(t, { plan: 'enterprise' });
      const bot = (await createBot(t, chat.id, { name: 'Chatty' })).id;
      // Shuffled on input: the API must order by createdAt, not by insertion.
      const shuffled = [...longMessages.slice(30), ...longMessages.slice(0, 30).reverse()];
      longConversation = (await recordConversation(t, chat.id, bot, { createdAt: new Date(BASE).toISOString(), messages: shuffled })).id;
      tieConversation = (
        await recordConversation(t, chat.id, bot, {
          createdAt: '2026-03-02T00:00:00.000Z',
          messages: [
            { role: 'user', content: 'late', createdAt: '2026-03-02T00:00:02.000Z' },
            { role: 'assistant', content: 'tie 1', createdAt: '2026-03-02T00:00:01.000Z' },
            { role: 'agent', content: 'tie 2', createdAt: '2026-03-02T00:00:01.000Z' },
            { role: 'user', content: 'tie 3', createdAt: '2026-03-02T00:00:01.000Z' },
            { role: 'assistant', content: 'early', createdAt: '2026-03-02T00:00:00.000Z' },
          ],
        })
      ).id;
      emptyConversation = (await recordConversation(t, chat.id, bot, { messages: [] })).id;
    });

    it('answers the first 50 messages by default, oldest first, with every field', async () => {
      const response = await get(messagesUrl(longConversation), chat.key).expect(200);
      expect(response.body).toStrictEqual({
        messages: longMessages.slice(0, 50).map((message) => ({ id: expect.stringMatching(UUID), conversationId: longConversation, ...message })),
        pagination: { total: 60, limit: 50, offset: 0, hasMore: true },
      });
      for (const message of response.body.messages) expect(Object.keys(message).sort()).toEqual(MESSAGE_FIELDS);
    });

    it('answers the remaining 10 on the second page', async () => {
      const response = await get(messagesUrl(longConversation, '?offset=50'), chat.key).expect(200);
      expect(response.body).toStrictEqual({
        messages: longMessages.slice(50).map((message) => ({ id: expect.stringMatching(UUID), conversationId: longConversation, ...message })),
        pagination: { total: 60, limit: 50, offset: 50, hasMore: false },
      });
    });

    it('answers up to 100 with limit=100', async () => {
      const response = await get(messagesUrl(longConversation, '?limit=100'), chat.key).expect(200);
      expect(response.body.messages.map((message: Body) => message.content)).toEqual(longMessages.map((message) => message.content));
      expect(response.body.pagination).toStrictEqual({ total: 60, limit: 100, offset: 0, hasMore: false });
      expect(new Set(ids(response)).size).toBe(60);
    });

    it('walks every page without duplicates or gaps', async () => {
      const seen: Body[] = [];
      for (let offset = 0; ; offset += 7) {
        const response = await get(messagesUrl(longConversation, `?limit=7&offset=${offset}`), chat.key).expect(200);
        expect(response.body.pagination).toStrictEqual({ total: 60, limit: 7, offset, hasMore: offset + 7 < 60 });
        seen.push(...response.body.messages);
        if (!response.body.pagination.hasMore) break;
      }
      expect(seen.map((message) => message.content)).toEqual(longMessages.map((message) => message.content));
      expect(new Set(seen.map((message) => message.id)).size).toBe(60);
    });

    it('orders messages with equal createdAt by id', async () => {
      const response = await get(messagesUrl(tieConversation), chat.key).expect(200);
      const messages = response.body.messages as Body[];
      expect(messages.map((message) => message.content)).toEqual([
        'early',
        expect.stringMatching(/^tie /),
        expect.stringMatching(/^tie /),
        expect.stringMatching(/^tie /),
        'late',
      ]);
      const ties = messages.slice(1, 4);
      expect(new Set(ties.map((message) => message.content))).toEqual(new Set(['tie 1', 'tie 2', 'tie 3']));
      expect(ties.map((message) => message.id)).toEqual(ties.map((message) => message.id).sort());
      expect(response.body.pagination).toStrictEqual({ total: 5, limit: 50, offset: 0, hasMore: false });

      const conversation = (await get(`/api/v1/conversations/${tieConversation}`, chat.key).expect(200)).body.conversation;
      expect(conversation.messageCount).toBe(5);
      expect(conversation.lastMessageAt).toBe('2026-03-02T00:00:02.000Z');
    });

    it('answers an empty page for a conversation without messages', async () => {
      const response = await get(messagesUrl(emptyConversation), chat.key).expect(200);
      expect(response.body).toStrictEqual({ messages: [], pagination: { total: 0, limit: 50, offset: 0, hasMore: false } });
    });

    it.each(['101', '0', 'abc', '1.5', '-1'])('rejects limit=%s', async (limit) => {
      expectValidationError(await get(messagesUrl(longConversation, `?limit=${limit}`), chat.key), 'limit');
    });

    it.each(['abc', '1.5', '-1'])('rejects offset=%s', async (offset) => {
      expectValidationError(await get(messagesUrl(longConversation, `?offset=${offset}`), chat.key), 'offset');
    });

    it('rejects an unknown query parameter', async () => {
      expectValidationError(await get(messagesUrl(longConversation, '?status=active'), chat.key), 'status');
    });

    it("answers 404 NOT_FOUND for an unknown UUID, a malformed id and another tenant's conversation", async () => {
      for (const id of [randomUUID(), 'not-a-uuid', `${longConversation}0`]) {
        expectError(await get(messagesUrl(id), chat.key), 404, 'NOT_FOUND');
      }
      expectError(await get(messagesUrl(longConversation), tenant.key), 404, 'NOT_FOUND');
      expectError(await get(messagesUrl(cA1.id), chat.key), 404, 'NOT_FOUND');
    });

    it('validates the query before looking up the conversation', async () => {
      expectValidationError(await get(messagesUrl('not-a-uuid', '?limit=0'), chat.key), 'limit');
    });

    it('needs the conversations:read scope', async () => {
      const limited = await createTenant(t, { plan: 'enterprise', scopes: ['bots:read'] });
      expectError(await get(messagesUrl(randomUUID()), limited.key), 403, 'INSUFFICIENT_SCOPE');
    });
  });
});
