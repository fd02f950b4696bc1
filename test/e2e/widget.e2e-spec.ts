import { randomBytes } from 'node:crypto';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { VisitorTokens } from '../../src/widget/visitor-token';

const TEST_WIDGET_SECRET = 'e2e-widget-token-secret-0123456789abcdef';
const DAY_S = 86_400;

/** A random /64 of the documentation range, as `2001:db8:xxxx:xxxx:` (append the interface id). */
const randomNetwork64 = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:`;

describe('Widget API: sessions, conversations, leads, origins', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let publicKey: string;
  let botId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenant.id, { name: 'Helper', primaryColor: '#112233', language: 'de' })).id;
    await t
      .http()
      .patch(`/api/v1/bots/${botId}/settings`)
      .set('X-API-Key', tenant.key)
      .send({ welcomeMessage: 'Hallo!', suggestedQuestions: ['Was kostet es?'] })
      .expect(200);
    await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: 'https://hooks.example.com/in', events: ['*'] })
      .expect(201);
  });
  afterAll(() => t.close());

  const widget = (method: 'get' | 'post', path: string, key = publicKey) => t.http()[method](`/api/v1/widget${path}`).set('X-API-Key', key);
  const session = async (bot = botId, key = publicKey, previous: { visitorToken?: string; visitorId?: string } = {}) =>
    (
      await widget('post', '/sessions', key)
        .send({ botId: bot, ...previous })
        .expect(201)
    ).body as { visitorToken: string; visitorId: string; expiresAt: string };
  const startConversation = async (token: string, key = publicKey) =>
    (await widget('post', '/conversations', key).set('X-Visitor-Token', token).send({}).expect(201)).body;
  const eventsOf = async (type: string, id: string) =>
    (await t.prisma.webhookEvent.findMany({ where: { tenantId: tenant.id, type } })).filter((event) => JSON.stringify(event.data).includes(id));

  describe('keys', () => {
    it('refuses a secret key with 403 INSUFFICIENT_SCOPE, and keeps public keys out of the rest of the API', async () => {
      expectError(await widget('get', `/bots/${botId}`, tenant.key), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.http().get('/api/v1/bots').set('X-API-Key', publicKey), 403, 'INSUFFICIENT_SCOPE');
      expectError(await widget('get', `/bots/${botId}`, 'svc_pk_nonsense'), 401, 'INVALID_API_KEY');
    });

    it("never counts widget requests against the tenant's API quota", async () => {
      const before = (await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200)).headers['x-ratelimit-remaining'];
      for (let i = 0; i < 5; i++) await widget('get', `/bots/${botId}`).expect(200);
      const after = (await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200)).headers['x-ratelimit-remaining'];
      expect(Number(before) - Number(after)).toBe(1);
    });
  });

  describe('GET /bots/:botId and POST /sessions', () => {
    it('answers the bot as the widget shows it', async () => {
      const response = await widget('get', `/bots/${botId}`).expect(200);
      expect(response.body).toEqual({
        bot: {
          id: botId,
          name: 'Helper',
          avatarUrl: null,
          primaryColor: '#112233',
          language: 'de',
          welcomeMessage: 'Hallo!',
          suggestedQuestions: ['Was kostet es?'],
          leadCapture: { enabled: true, requirePhone: false, requireCompany: false },
          handoff: { enabled: false, message: expect.any(String) },
        },
      });
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it('starts a session with a visitor id the service mints', async () => {
      const fresh = await session();
      expect(fresh).toEqual({
        visitorToken: expect.stringMatching(/^v1\./),
        visitorId: expect.stringMatching(/^v_[A-Za-z0-9_-]{16}$/),
        expiresAt: expect.stringMatching(ISO_MS),
      });
      expect(Date.parse(fresh.expiresAt) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
      expect((await session()).visitorId).not.toBe(fresh.visitorId);
    });

    it('keeps the visitor of an earlier token of the tenant, even expired up to 30 days ago', async () => {
      const first = await session();
      expect((await session(botId, publicKey, { visitorToken: first.visitorToken })).visitorId).toBe(first.visitorId);
      const nowS = Math.floor(Date.now() / 1000);
      const expired = new VisitorTokens(TEST_WIDGET_SECRET).sign({
        tenantId: tenant.id,
        botId,
        visitorId: 'v_returning-visitor1',
        expiresAt: nowS - 29 * DAY_S,
      });
      const renewed = await session(botId, publicKey, { visitorToken: expired });
      expect(renewed.visitorId).toBe('v_returning-visitor1');
      // The new token is a valid one: the visitor goes on with it.
      await widget('post', '/conversations').set('X-Visitor-Token', renewed.visitorToken).send({}).expect(201);
    });

    it("mints a new visitor for a bare visitorId, a token too old, forged or another tenant's", async () => {
      const victim = await session();
      const nowS = Math.floor(Date.now() / 1000);
      const tooOld = new VisitorTokens(TEST_WIDGET_SECRET).sign({ tenantId: tenant.id, botId, visitorId: victim.visitorId, expiresAt: nowS - 31 * DAY_S });
      const forged = new VisitorTokens('another-secret-of-at-least-32-characters!').sign({
        tenantId: tenant.id,
        botId,
        visitorId: victim.visitorId,
        expiresAt: nowS + 60,
      });
      const other = await createTenant(t, { plan: 'enterprise' });
      const foreign = new VisitorTokens(TEST_WIDGET_SECRET).sign({ tenantId: other.id, botId, visitorId: victim.visitorId, expiresAt: nowS + 60 });
      for (const previous of [
        { visitorId: victim.visitorId },
        { visitorToken: tooOld },
        { visitorToken: forged },
        { visitorToken: foreign },
        { visitorToken: 'garbage' },
      ]) {
        const minted = await session(botId, publicKey, previous);
        expect(minted.visitorId).toMatch(/^v_[A-Za-z0-9_-]{16}$/);
        expect(minted.visitorId).not.toBe(victim.visitorId);
      }
    });

    it("never lets a caller that names another visitor's id read that visitor's conversation", async () => {
      const victim = await session();
      const { conversation } = await startConversation(victim.visitorToken);
      const intruder = await session(botId, publicKey, { visitorId: victim.visitorId });
      expectError(await widget('get', `/conversations/${conversation.id}/messages`).set('X-Visitor-Token', intruder.visitorToken), 404, 'NOT_FOUND');
    });

    it.each([
      [{}, 'botId', 'must be a string'],
      [{ botId: 'nope' }, 'botId', 'must be a UUID'],
      [{ botId: '00000000-0000-7000-8000-000000000000', visitorToken: 5 }, 'visitorToken', 'must be a string'],
      [{ botId: '00000000-0000-7000-8000-000000000000', visitorToken: 'x'.repeat(1025) }, 'visitorToken', 'must be at most 1024 characters'],
      [{ botId: '00000000-0000-7000-8000-000000000000', visitorToken: null }, 'visitorToken', expect.any(String)],
    ])('refuses a session body %j', async (body, field, message) => {
      expectError(await widget('post', '/sessions').send(body), 400, 'VALIDATION_ERROR', [{ field, message }]);
    });

    it("is 404 for another tenant's bot and 409 BOT_INACTIVE for an inactive one", async () => {
      const other = await createTenant(t, { plan: 'enterprise' });
      const theirBot = (await createBot(t, other.id)).id;
      expectError(await widget('get', `/bots/${theirBot}`), 404, 'NOT_FOUND');
      expectError(await widget('post', '/sessions').send({ botId: theirBot }), 404, 'NOT_FOUND');
      const sleeping = (await createBot(t, tenant.id, { isActive: false })).id;
      expectError(await widget('get', `/bots/${sleeping}`), 409, 'BOT_INACTIVE');
      expectError(await widget('post', '/sessions').send({ botId: sleeping }), 409, 'BOT_INACTIVE');
    });
  });

  describe('visitor tokens', () => {
    it('refuses a missing, altered, expired or foreign token with 401 INVALID_VISITOR_TOKEN', async () => {
      const { visitorToken } = await session();
      const [version, payload, signature] = visitorToken.split('.');
      const tampered = `${version}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), v: 'someone-else' })).toString('base64url')}.${signature}`;
      const expired = new VisitorTokens(TEST_WIDGET_SECRET).sign({
        tenantId: tenant.id,
        botId,
        visitorId: 'visitor-expired',
        expiresAt: Math.floor(Date.now() / 1000) - 1,
      });
      const forged = new VisitorTokens('another-secret-of-at-least-32-characters!').sign({
        tenantId: tenant.id,
        botId,
        visitorId: 'visitor-forged',
        expiresAt: Math.floor(Date.now() / 1000) + 60,
      });
      const other = await createTenant(t, { plan: 'enterprise' });
      const otherKey = (await createKey(t, other.id, { type: 'public', scopes: [] })).key;
      const foreign = (await session((await createBot(t, other.id)).id, otherKey)).visitorToken;
      for (const token of [undefined, 'garbage', tampered, expired, forged, foreign]) {
        const request = widget('post', '/conversations');
        expectError(await (token ? request.set('X-Visitor-Token', token) : request).send({}), 401, 'INVALID_VISITOR_TOKEN');
      }
      // The genuine one works, so the refusals above are the token's doing.
      await widget('post', '/conversations').set('X-Visitor-Token', visitorToken).send({}).expect(201);
    });

    it('checks the token before the body, like every credential', async () => {
      expectError(await widget('post', '/conversations').send({ unexpected: true }), 401, 'INVALID_VISITOR_TOKEN');
    });
  });

  describe('conversations', () => {
    it('starts a widget conversation with the welcome message, counted and announced like every other', async () => {
      const before = (await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', tenant.key).expect(200)).body.bot;
      const { visitorToken, visitorId } = await session();
      const started = await startConversation(visitorToken);
      expect(started).toEqual({
        conversation: expect.objectContaining({
          id: expect.stringMatching(UUID),
          botId,
          status: 'active',
          channel: 'widget',
          visitorId,
          leadId: null,
          messageCount: 1,
          lastMessageAt: expect.stringMatching(ISO_MS),
          endedAt: null,
        }),
        messages: [
          {
            id: expect.stringMatching(UUID),
            conversationId: started.conversation.id,
            role: 'assistant',
            content: 'Hallo!',
            createdAt: expect.stringMatching(ISO_MS),
          },
        ],
      });
      const after = (await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', tenant.key).expect(200)).body.bot;
      expect({ conversations: after.conversationCount - before.conversationCount, messages: after.messageCount - before.messageCount }).toEqual({
        conversations: 1,
        messages: 1,
      });
      expect((await t.http().get(`/api/v1/conversations/${started.conversation.id}`).set('X-API-Key', tenant.key).expect(200)).body.conversation).toEqual(
        started.conversation,
      );
      expect(await eventsOf('conversation.started', started.conversation.id)).toHaveLength(1);
      expect(await eventsOf('message.created', started.messages[0].id)).toHaveLength(1);
    });

    it("reads the visitor's messages, all or after one", async () => {
      const { visitorToken } = await session();
      const { conversation, messages } = await startConversation(visitorToken);
      const read = (query = '') => widget('get', `/conversations/${conversation.id}/messages${query}`).set('X-Visitor-Token', visitorToken);
      expect((await read().expect(200)).body).toEqual({ messages });
      expect((await read(`?after=${messages[0].id}`).expect(200)).body).toEqual({ messages: [] });
      expectError(await read('?after=00000000-0000-7000-8000-000000000000'), 400, 'VALIDATION_ERROR', [
        { field: 'after', message: 'must be the id of a message of this conversation' },
      ]);
      expectError(await read('?after=x'), 400, 'VALIDATION_ERROR', [{ field: 'after', message: 'must be a UUID' }]);
    });

    it("keeps each visitor to its own conversations: another visitor's, bot's or tenant's are 404", async () => {
      const mine = await session();
      const { conversation } = await startConversation(mine.visitorToken);
      const stranger = await session();
      const otherBot = (await createBot(t, tenant.id)).id;
      const sameVisitorOtherBot = await session(otherBot, publicKey, { visitorToken: mine.visitorToken });
      expect(sameVisitorOtherBot.visitorId).toBe(mine.visitorId);
      for (const token of [stranger.visitorToken, sameVisitorOtherBot.visitorToken]) {
        expectError(await widget('get', `/conversations/${conversation.id}/messages`).set('X-Visitor-Token', token), 404, 'NOT_FOUND');
        expectError(await widget('post', `/conversations/${conversation.id}/end`).set('X-Visitor-Token', token).send({}), 404, 'NOT_FOUND');
        expectError(
          await widget('post', `/conversations/${conversation.id}/lead`).set('X-Visitor-Token', token).send({ name: 'X', email: 'x@example.com' }),
          404,
          'NOT_FOUND',
        );
      }
      expectError(await widget('get', '/conversations/not-a-uuid/messages').set('X-Visitor-Token', mine.visitorToken), 404, 'NOT_FOUND');
    });

    it('ends a conversation once: conversation.ended is sent once, a second end changes nothing', async () => {
      const { visitorToken } = await session();
      const { conversation } = await startConversation(visitorToken);
      const ended = (await widget('post', `/conversations/${conversation.id}/end`).set('X-Visitor-Token', visitorToken).send({}).expect(200)).body.conversation;
      expect(ended).toMatchObject({ id: conversation.id, status: 'ended', endedAt: expect.stringMatching(ISO_MS) });
      expect(
        (await widget('post', `/conversations/${conversation.id}/end`).set('X-Visitor-Token', visitorToken).send({}).expect(200)).body.conversation,
      ).toEqual(ended);
      expect(await eventsOf('conversation.ended', conversation.id)).toHaveLength(1);
    });

    it('answers 409 BOT_INACTIVE on every call once the bot is deactivated; its conversations stay readable through the API', async () => {
      const bot = (await createBot(t, tenant.id)).id;
      const { visitorToken } = await session(bot);
      const { conversation } = await startConversation(visitorToken);
      await t.admin().patch(`/admin/v1/tenants/${tenant.id}/bots/${bot}`).send({ isActive: false }).expect(200);
      expectError(await widget('get', `/bots/${bot}`), 409, 'BOT_INACTIVE');
      expectError(await widget('post', '/conversations').set('X-Visitor-Token', visitorToken).send({}), 409, 'BOT_INACTIVE');
      expectError(await widget('get', `/conversations/${conversation.id}/messages`).set('X-Visitor-Token', visitorToken), 409, 'BOT_INACTIVE');
      expectError(
        await widget('post', `/conversations/${conversation.id}/messages`).set('X-Visitor-Token', visitorToken).send({ content: 'Hi' }),
        409,
        'BOT_INACTIVE',
      );
      expectError(
        await widget('post', `/conversations/${conversation.id}/lead`).set('X-Visitor-Token', visitorToken).send({ name: 'A', email: 'a@example.com' }),
        409,
        'BOT_INACTIVE',
      );
      expectError(await widget('post', `/conversations/${conversation.id}/end`).set('X-Visitor-Token', visitorToken).send({}), 409, 'BOT_INACTIVE');
      await t.http().get(`/api/v1/conversations/${conversation.id}`).set('X-API-Key', tenant.key).expect(200);
    });
  });

  describe('the lead form', () => {
    it('captures a widget lead linked to the conversation, found through GET /api/v1/leads, once', async () => {
      const { visitorToken } = await session();
      const { conversation } = await startConversation(visitorToken);
      const lead = (
        await widget('post', `/conversations/${conversation.id}/lead`)
          .set('X-Visitor-Token', visitorToken)
          .send({ name: ' Erika Muster ', email: 'erika@example.com', company: 'Muster AG' })
          .expect(201)
      ).body.lead;
      expect(lead).toMatchObject({
        name: 'Erika Muster',
        email: 'erika@example.com',
        company: 'Muster AG',
        source: 'widget',
        status: 'new',
        botId,
        conversationId: conversation.id,
        tags: [],
      });
      expect((await t.http().get('/api/v1/leads?search=erika').set('X-API-Key', tenant.key).expect(200)).body.leads).toEqual([lead]);
      expect((await t.http().get(`/api/v1/conversations/${conversation.id}`).set('X-API-Key', tenant.key).expect(200)).body.conversation.leadId).toBe(lead.id);
      expect(await eventsOf('lead.created', lead.id)).toHaveLength(1);
      expectError(
        await widget('post', `/conversations/${conversation.id}/lead`).set('X-Visitor-Token', visitorToken).send({ name: 'Again', email: 'again@example.com' }),
        409,
        'LEAD_ALREADY_CAPTURED',
      );
    });

    it('refuses tags and botId, and enforces the tenant’s required fields and its switch', async () => {
      const tenant2 = await createTenant(t, { plan: 'enterprise' });
      const key2 = (await createKey(t, tenant2.id, { type: 'public', scopes: [] })).key;
      const bot2 = (await createBot(t, tenant2.id)).id;
      const { visitorToken } = await session(bot2, key2);
      const { conversation } = await startConversation(visitorToken, key2);
      const send = (body: object) => widget('post', `/conversations/${conversation.id}/lead`, key2).set('X-Visitor-Token', visitorToken).send(body);
      expectError(await send({ name: 'A', email: 'a@example.com', tags: ['x'], botId: bot2 }), 400, 'VALIDATION_ERROR', [
        { field: 'tags', message: 'is not an allowed field' },
        { field: 'botId', message: 'is not an allowed field' },
      ]);
      await t
        .http()
        .patch('/api/v1/settings')
        .set('X-API-Key', tenant2.key)
        .send({ leadCapture: { requirePhone: true, requireCompany: true } })
        .expect(200);
      expectError(await send({ name: 'A', email: 'a@example.com', phone: '' }), 400, 'VALIDATION_ERROR', [
        { field: 'phone', message: 'is required' },
        { field: 'company', message: 'is required' },
      ]);
      await t
        .http()
        .patch('/api/v1/settings')
        .set('X-API-Key', tenant2.key)
        .send({ leadCapture: { enabled: false } })
        .expect(200);
      expectError(await send({ name: 'A', email: 'a@example.com', phone: '1', company: 'C' }), 409, 'LEAD_CAPTURE_DISABLED');
      expect(await t.prisma.lead.count({ where: { tenantId: tenant2.id } })).toBe(0);
    });
  });

  describe('the per-address limit', () => {
    it('allows 60 widget requests a minute from one address, then 429 with Retry-After', async () => {
      const limited = await createTestApp({ PUBLIC_KEY_RATE_LIMIT: '60' });
      try {
        const owner = await createTenant(limited, { plan: 'enterprise' });
        const key = (await createKey(limited, owner.id, { type: 'public', scopes: [] })).key;
        const bot = (await createBot(limited, owner.id)).id;
        const answers = [];
        for (let i = 0; i < 61; i++) answers.push(await limited.http().get(`/api/v1/widget/bots/${bot}`).set('X-API-Key', key));
        expect(answers.slice(0, 60).every((answer) => answer.status === 200)).toBe(true);
        expectError(answers[60], 429, 'RATE_LIMIT_EXCEEDED');
        expect(Number(answers[60].headers['retry-after'])).toBeGreaterThan(0);
        // The tenant's own API is untouched by it.
        await limited.http().get('/api/v1/bots').set('X-API-Key', owner.key).expect(200);
      } finally {
        await limited.close();
      }
    });
  });

  describe('the per-address limits of new sessions, counting IPv6 by /64', () => {
    let limited: TestApp;
    let key: string;
    let bot: string;
    beforeAll(async () => {
      // TRUST_PROXY: each test comes from addresses of its own (X-Forwarded-For from loopback).
      limited = await createTestApp({ WIDGET_SESSION_RATE_LIMIT: '10', PUBLIC_KEY_RATE_LIMIT: '20', TRUST_PROXY: 'loopback' });
      const owner = await createTenant(limited, { plan: 'enterprise' });
      key = (await createKey(limited, owner.id, { type: 'public', scopes: [] })).key;
      bot = (await createBot(limited, owner.id)).id;
    });
    afterAll(() => limited.close());

    const newSession = (from: string) => limited.http().post('/api/v1/widget/sessions').set('X-Forwarded-For', from).set('X-API-Key', key).send({ botId: bot });

    it('allows 10 new sessions a minute from one /64, then 429 with Retry-After; another /64 has its own', async () => {
      const network = randomNetwork64();
      // Ten addresses of one /64: a single subscriber's network is one client.
      for (let i = 1; i <= 10; i++) await newSession(`${network}${i.toString(16)}::1`).expect(201);
      const refused = await newSession(`${network}ffff::1`);
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      await newSession(`${randomNetwork64()}1::1`).expect(201);
    });

    it('counts the public-key limit of an IPv6 client by /64 too', async () => {
      const network = randomNetwork64();
      for (let i = 1; i <= 20; i++)
        await limited
          .http()
          .get(`/api/v1/widget/bots/${bot}`)
          .set('X-Forwarded-For', `${network}${i.toString(16)}::2`)
          .set('X-API-Key', key)
          .expect(200);
      expectError(
        await limited.http().get(`/api/v1/widget/bots/${bot}`).set('X-Forwarded-For', `${network}abcd::2`).set('X-API-Key', key),
        429,
        'RATE_LIMIT_EXCEEDED',
      );
    });
  });

  describe('origins and CORS', () => {
    let shop: TestTenant;
    let shopKey: string;
    let shopBot: string;
    beforeAll(async () => {
      shop = await createTenant(t, { plan: 'enterprise' });
      shopKey = (await createKey(t, shop.id, { type: 'public', scopes: [] })).key;
      shopBot = (await createBot(t, shop.id)).id;
    });

    it('answers any origin, with its CORS headers, while allowedOrigins is empty', async () => {
      const response = await widget('get', `/bots/${shopBot}`, shopKey).set('Origin', 'https://anywhere.example').expect(200);
      expect(response.headers['access-control-allow-origin']).toBe('https://anywhere.example');
      expect(response.headers.vary).toMatch(/Origin/);
    });

    it('refuses an origin not listed with 403 ORIGIN_NOT_ALLOWED and no CORS headers; a listed one and no Origin pass', async () => {
      await t
        .http()
        .patch('/api/v1/settings')
        .set('X-API-Key', shop.key)
        .send({ allowedOrigins: ['https://shop.example.com'] })
        .expect(200);
      const refused = await widget('get', `/bots/${shopBot}`, shopKey).set('Origin', 'https://evil.example');
      expectError(refused, 403, 'ORIGIN_NOT_ALLOWED');
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      const allowed = await widget('get', `/bots/${shopBot}`, shopKey).set('Origin', 'https://shop.example.com').expect(200);
      expect(allowed.headers['access-control-allow-origin']).toBe('https://shop.example.com');
      await widget('get', `/bots/${shopBot}`, shopKey).expect(200);
    });

    it('answers preflights on widget paths only', async () => {
      const preflight = await t
        .http()
        .options('/api/v1/widget/sessions')
        .set('Origin', 'https://shop.example.com')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'x-api-key, content-type');
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': 'https://shop.example.com', 'access-control-allow-methods': 'GET, POST' });
      expect(preflight.headers['access-control-allow-headers']).toMatch(/X-API-Key/);
      expect(preflight.headers['access-control-allow-headers']).toMatch(/X-Visitor-Token/);
      const elsewhere = await t.http().options('/api/v1/leads').set('Origin', 'https://shop.example.com').set('Access-Control-Request-Method', 'GET');
      expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
      const api = await t.http().get('/api/v1/verify').set('X-API-Key', shop.key).set('Origin', 'https://shop.example.com');
      expect(api.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
