import { VisitorsRepository } from '../../src/conversations/visitors/visitors.repository';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, createWebhookEndpoint, recordConversation, TestTenant } from '../support/factories';
import { allEvents, listen, openStream, type StreamedEvent } from '../support/sse-client';
import { asUser, signUp, type TestUser } from '../support/users';
import { WebhookReceiver } from '../support/webhook-receiver';

const PRICING = 'Pricing. The Pro plan costs 49 EUR per month and includes 10,000 messages. The Business plan costs 199 EUR per month.';
const SHIPPING = 'Shipping. Orders ship within two business days from our warehouse in Hamburg; delivery in Germany takes one to three days.';
const UUID_ZERO = '00000000-0000-4000-8000-000000000000';

/** The API channel (API_DECISIONS part 4): a tenant bridges its own messenger through its key. */
describe('The API channel', () => {
  let t: TestApp;
  let port: number;
  let receiver: WebhookReceiver;
  let owner: TestUser;
  let tenant: TestTenant;
  let botId: string;
  let pricingDoc: { id: string; title: string };

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp(
      { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' },
      // On PostgreSQL the suites share one database: this instance delivers only its tenant's events (set below).
      { webhookDelivery: { pollMs: 50, timeoutMs: 1_000, leaseMs: 3_000, drainMs: 2_000, tenantIds: [] } },
    );
    port = await listen(t);
    // A tenant with a signed-in owner (the inbox's agent below) and a key with every scope.
    owner = await signUp(t);
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
    const key = await createKey(t, owner.tenantId);
    tenant = { id: owner.tenantId, name: 'Bridge', slug: '', key: key.key, keyId: key.id };
    Object.assign(t.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
    botId = (await createBot(t, tenant.id, { language: 'en' })).id;
    pricingDoc = (
      await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/documents`).send({ title: 'Plans and pricing', content: PRICING }).expect(201)
    ).body.document;
    await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/documents`).send({ title: 'Shipping', content: SHIPPING }).expect(201);
    // The bridge's receiver: events are recorded for a tenant with an endpoint that wants them.
    await createWebhookEndpoint(t, tenant.key, receiver.url('/bridge'), ['message.created']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  const open = (body: Record<string, unknown>, key = tenant.key) => t.http().post('/api/v1/conversations').set('X-API-Key', key).send(body);
  const send = (id: string, content: unknown, key = tenant.key) =>
    t.http().post(`/api/v1/conversations/${id}/visitor-messages`).set('X-API-Key', key).send({ content });
  const opened = async (body: Record<string, unknown> = {}, key = tenant.key) =>
    (await open({ botId, ...body }, key).expect(201)).body.conversation.id as string;
  const usage = async (key = tenant.key) => (await t.http().get('/api/v1/verify').set('X-API-Key', key).expect(200)).body.usage.messagesThisMonth as number;

  describe('POST /api/v1/conversations', () => {
    it('opens a conversation of an anonymous visitor with the welcome message, its Location, and the profile given', async () => {
      const response = await open({ botId, visitor: { name: '  Ada  ', email: 'ada@example.com' } }).expect(201);
      const { conversation, messages } = response.body;
      expect(response.headers.location).toBe(`/api/v1/conversations/${conversation.id}`);
      expect(conversation).toMatchObject({
        id: expect.stringMatching(UUID),
        botId,
        status: 'active',
        channel: 'api',
        visitor: { id: expect.stringMatching(/^v_[A-Za-z0-9_-]{16}$/), externalId: null, email: 'ada@example.com', name: 'Ada', verified: false },
      });
      expect(conversation.visitorId).toBe(conversation.visitor.id);
      expect(messages).toEqual([
        {
          id: expect.stringMatching(UUID),
          conversationId: conversation.id,
          role: 'assistant',
          content: expect.any(String),
          createdAt: expect.stringMatching(ISO_MS),
        },
      ]);
      const read = (await t.http().get(response.headers.location).set('X-API-Key', tenant.key).expect(200)).body.conversation;
      expect(read).toEqual(conversation);
      // Two anonymous conversations are two visitors.
      const other = (await open({ botId }).expect(201)).body.conversation.visitor;
      expect(other).toMatchObject({ externalId: null, email: null, name: null, verified: false });
      expect(other.id).not.toBe(conversation.visitor.id);
    });

    it('identifies the person by externalId: verified, the same visitor on each conversation, their profile kept', async () => {
      const first = (await open({ botId, externalId: 'wa:+4915100000001', visitor: { name: 'Grace' } }).expect(201)).body.conversation;
      expect(first.visitor).toEqual({ id: expect.stringMatching(/^v_/), externalId: 'wa:+4915100000001', email: null, name: 'Grace', verified: true });
      const second = (await open({ botId, externalId: 'wa:+4915100000001', visitor: { email: 'grace@example.com' } }).expect(201)).body.conversation;
      expect(second.visitor).toEqual({ ...first.visitor, email: 'grace@example.com' });
      // The known visitor of the widget's identity tokens: one id per external id.
      expect((await t.app.get(VisitorsRepository).identify(tenant.id, { externalId: 'wa:+4915100000001' })).id).toBe(first.visitor.id);
      // The profile followed the person to their earlier conversation.
      expect((await t.http().get(`/api/v1/conversations/${first.id}`).set('X-API-Key', tenant.key).expect(200)).body.conversation.visitor).toEqual(
        second.visitor,
      );
    });

    it('refuses another tenant’s bot as a bad botId (400), an inactive bot (409 BOT_INACTIVE), and a bad body (400)', async () => {
      const other = await createTenant(t);
      const foreignBot = (await createBot(t, other.id)).id;
      expectError(await open({ botId: foreignBot }), 400, 'VALIDATION_ERROR', [{ field: 'botId', message: 'must be the id of one of your bots' }]);
      expectError(await open({ botId: UUID_ZERO }), 400, 'VALIDATION_ERROR', [{ field: 'botId', message: 'must be the id of one of your bots' }]);
      const idle = (await createBot(t, tenant.id, { isActive: false })).id;
      expectError(await open({ botId: idle, externalId: 'never-identified' }), 409, 'BOT_INACTIVE');
      expect(await t.app.get(VisitorsRepository).idOf(tenant.id, 'never-identified')).toBeNull();
      expectError(await open({ botId, externalId: 'x'.repeat(201) }), 400, 'VALIDATION_ERROR', [
        { field: 'externalId', message: 'must be 1 to 200 characters' },
      ]);
      expectError(await open({ botId, visitor: { email: 'not-an-address' } }), 400, 'VALIDATION_ERROR', [
        { field: 'visitor.email', message: 'must be a valid e-mail address' },
      ]);
      expectError(await open({ botId, unknown: true }), 400, 'VALIDATION_ERROR', [{ field: 'unknown', message: 'is not an allowed field' }]);
    });
  });

  describe('POST /api/v1/conversations/:id/visitor-messages', () => {
    it("answers from the bot's knowledge with the widget's JSON, counts the reply and announces both messages", async () => {
      const id = await opened();
      const before = await usage();
      const answer = await send(id, '  How much does the Pro plan cost?  ').expect(201);
      expect(answer.body).toEqual({
        message: {
          id: expect.stringMatching(UUID),
          conversationId: id,
          role: 'user',
          content: 'How much does the Pro plan cost?',
          createdAt: expect.stringMatching(ISO_MS),
        },
        reply: {
          id: expect.stringMatching(UUID),
          conversationId: id,
          role: 'assistant',
          content: expect.stringContaining('49 EUR'),
          createdAt: expect.stringMatching(ISO_MS),
          sources: [{ id: pricingDoc.id, title: 'Plans and pricing' }],
        },
      });
      expect(await usage()).toBe(before + 1);
      const listed = (await t.http().get(`/api/v1/conversations/${id}/messages`).set('X-API-Key', tenant.key).expect(200)).body.messages;
      const { sources: _sources, ...reply } = answer.body.reply;
      expect(listed.slice(-2)).toEqual([answer.body.message, reply]);
      const events = await t.prisma.webhookEvent.findMany({ where: { tenantId: tenant.id, type: 'message.created' } });
      const announced = events.map((event) => (event.data as { object: { id: string } }).object.id);
      expect(announced).toEqual(expect.arrayContaining([answer.body.message.id, answer.body.reply.id]));
    });

    it('streams the reply as the widget does: deltas in order, then done with the JSON answer', async () => {
      const id = await opened();
      const response = await send(id, 'How long does shipping take?').set('Accept', 'text/event-stream').buffer(true).parse(allEvents);
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      const events = response.body as StreamedEvent[];
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events.slice(0, -1).every((e) => e.event === 'delta')).toBe(true);
      const done = events.at(-1)!;
      expect(done).toEqual({
        event: 'done',
        data: {
          message: expect.objectContaining({ role: 'user', content: 'How long does shipping take?' }),
          reply: expect.objectContaining({ role: 'assistant', sources: [expect.objectContaining({ title: 'Shipping' })] }),
        },
      });
      expect(
        events
          .slice(0, -1)
          .map((e) => e.data.text)
          .join(''),
      ).toBe(done.data.reply.content);
    });

    it('refuses an ended conversation (409 CONVERSATION_ENDED), streamed or not, storing nothing', async () => {
      const id = await opened();
      await t.http().post(`/api/v1/conversations/${id}/end`).set('X-API-Key', tenant.key).send({}).expect(200);
      expectError(await send(id, 'Hello?'), 409, 'CONVERSATION_ENDED');
      expectError(await send(id, 'Hello?').set('Accept', 'text/event-stream'), 409, 'CONVERSATION_ENDED');
      expect(await t.prisma.message.count({ where: { conversationId: id, role: 'user' } })).toBe(0);
    });

    it('finds no conversation of another tenant, of the widget, or that does not exist (404)', async () => {
      const other = await createTenant(t);
      const foreign = (await open({ botId: (await createBot(t, other.id)).id }, other.key).expect(201)).body.conversation.id as string;
      expectError(await send(foreign, 'Hello?'), 404, 'NOT_FOUND');
      const widget = (await recordConversation(t, tenant.id, botId, { status: 'active', channel: 'widget', visitorId: 'v-widget' })).id;
      expectError(await send(widget, 'Hello?'), 404, 'NOT_FOUND');
      expectError(await send(UUID_ZERO, 'Hello?'), 404, 'NOT_FOUND');
      expectError(await send('not-a-uuid', 'Hello?'), 404, 'NOT_FOUND');
    });

    it('validates the content as the widget does', async () => {
      const id = await opened();
      expectError(await send(id, '   '), 400, 'VALIDATION_ERROR', [{ field: 'content', message: 'must be 1 to 4000 characters' }]);
      expectError(await send(id, 'x'.repeat(4001)), 400, 'VALIDATION_ERROR', [{ field: 'content', message: 'must be 1 to 4000 characters' }]);
    });

    it("refuses a reply over the plan's monthly limit (429 MESSAGE_LIMIT_REACHED), storing nothing", async () => {
      const busy = await createTenant(t, { plan: 'pro' });
      const bot = (await createBot(t, busy.id)).id;
      const id = await opened({ botId: bot }, busy.key);
      const now = new Date();
      const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      await t.prisma.messageUsage.create({ data: { tenantId: busy.id, month, count: 9_999 } });
      await send(id, 'The last one this month', busy.key).expect(201);
      expect(await usage(busy.key)).toBe(10_000);
      const refused = await send(id, 'And one more?', busy.key);
      expectError(refused, 429, 'MESSAGE_LIMIT_REACHED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await t.prisma.message.count({ where: { conversationId: id, role: 'user' } })).toBe(1);
    });
  });

  it('needs conversations:write on both routes (403 INSUFFICIENT_SCOPE), and takes a signed-in member whose role has it', async () => {
    const id = await opened();
    const readOnly = (await createKey(t, tenant.id, { scopes: ['conversations:read', 'bots:read'] })).key;
    expectError(await open({ botId }, readOnly), 403, 'INSUFFICIENT_SCOPE');
    expectError(await send(id, 'Hello?', readOnly), 403, 'INSUFFICIENT_SCOPE');
    const publicKey = (await createKey(t, tenant.id, { type: 'public' })).key;
    expectError(await open({ botId }, publicKey), 403, 'INSUFFICIENT_SCOPE');
    const member = asUser(t, owner.cookie, tenant.id);
    const byMember = (await member.post('/api/v1/conversations').send({ botId }).expect(201)).body.conversation.id as string;
    expect((await member.post(`/api/v1/conversations/${byMember}/visitor-messages`).send({ content: 'Shipping?' }).expect(201)).body.reply).not.toBeNull();
  });

  it('end to end: an agent’s reply reaches the bridge by webhook and on the event stream, and the bot stays silent while handed off', async () => {
    const id = await opened({ externalId: 'slack:U0001' });
    await send(id, 'Can I talk to a person?').expect(201);
    const streamKey = (await createKey(t, tenant.id, { scopes: ['conversations:read'] })).key;
    const stream = await openStream(port, `/api/v1/conversations/${id}/events`, { 'X-API-Key': streamKey });
    try {
      expect(stream.status).toBe(200);
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ id, channel: 'api', status: 'active' });

      // A signed-in member answers from the inbox: the conversation is handed off to them.
      const agent = (await asUser(t, owner.cookie, tenant.id).post(`/api/v1/conversations/${id}/messages`).send({ content: 'Hi, Sam here.' }).expect(201)).body
        .message;
      expect(agent).toMatchObject({ conversationId: id, role: 'agent', content: 'Hi, Sam here.', authorName: 'Test User' });
      expect(await stream.next((e) => e.event === 'message' && e.id === agent.id)).toEqual({ event: 'message', id: agent.id, data: agent });
      await receiver.until(() => receiver.received.some((request) => request.body.includes(agent.id)));
      const delivered = JSON.parse(receiver.received.find((request) => request.body.includes(agent.id))!.body);
      expect(delivered).toMatchObject({ type: 'message.created', data: { object: agent } });

      // While a person has the conversation the bot is silent: the message is stored, nothing counted.
      const before = await usage();
      const held = await send(id, 'Thanks! One more question.').expect(201);
      expect(held.body).toEqual({ message: expect.objectContaining({ role: 'user', content: 'Thanks! One more question.' }), reply: null });
      expect(await usage()).toBe(before);
      expect(await stream.next((e) => e.event === 'message' && e.id === held.body.message.id)).toMatchObject({ data: { role: 'user' } });
    } finally {
      stream.close();
    }
  });
});
