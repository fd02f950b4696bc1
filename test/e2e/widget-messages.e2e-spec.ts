import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { allEvents, type StreamedEvent } from '../support/sse-client';

const PRICING = 'Pricing. The Pro plan costs 49 EUR per month and includes 10,000 messages. The Business plan costs 199 EUR per month.';
const SHIPPING = 'Shipping. Orders ship within two business days from our warehouse in Hamburg; delivery in Germany takes one to three days.';

interface Visitor {
  key: string;
  token: string;
  conversationId: string;
}

describe('Widget API: messages, replies and limits', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let publicKey: string;
  let botId: string;
  let pricingDoc: { id: string; title: string };

  beforeAll(async () => {
    // TRUST_PROXY: the per-address tests send from addresses of their own (X-Forwarded-For from loopback).
    t = await createTestApp({ TRUST_PROXY: 'loopback' });
    tenant = await createTenant(t, { plan: 'pro' });
    publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenant.id, { language: 'en' })).id;
    pricingDoc = (
      await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/documents`).send({ title: 'Plans and pricing', content: PRICING }).expect(201)
    ).body.document;
    await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/documents`).send({ title: 'Shipping', content: SHIPPING }).expect(201);
    await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: 'https://hooks.example.com/in', events: ['message.created'] })
      .expect(201);
  });
  afterAll(() => t.close());

  const visitor = async (bot = botId, key = publicKey): Promise<Visitor> => {
    const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', key).send({ botId: bot }).expect(201)).body.visitorToken as string;
    const conversationId = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', key).set('X-Visitor-Token', token).send({}).expect(201)).body
      .conversation.id as string;
    return { key, token, conversationId };
  };
  const send = (v: Visitor, content: unknown) =>
    t.http().post(`/api/v1/widget/conversations/${v.conversationId}/messages`).set('X-API-Key', v.key).set('X-Visitor-Token', v.token).send({ content });
  const usage = async (key = tenant.key) => (await t.http().get('/api/v1/verify').set('X-API-Key', key).expect(200)).body.usage.messagesThisMonth as number;

  it("answers from the bot's knowledge with the source, stores both messages, counts them and announces them", async () => {
    const v = await visitor();
    const before = {
      usage: await usage(),
      bot: (await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', tenant.key).expect(200)).body.bot.messageCount as number,
    };
    const answer = await send(v, '  How much does the Pro plan cost?  ').expect(201);
    expect(answer.body).toEqual({
      message: {
        id: expect.stringMatching(UUID),
        conversationId: v.conversationId,
        role: 'user',
        content: 'How much does the Pro plan cost?',
        createdAt: expect.stringMatching(ISO_MS),
      },
      reply: {
        id: expect.stringMatching(UUID),
        conversationId: v.conversationId,
        role: 'assistant',
        content: expect.stringContaining('49 EUR'),
        createdAt: expect.stringMatching(ISO_MS),
        sources: [{ id: pricingDoc.id, title: 'Plans and pricing' }],
      },
    });
    expect(Date.parse(answer.body.reply.createdAt)).toBeGreaterThan(Date.parse(answer.body.message.createdAt));
    const listed = (
      await t.http().get(`/api/v1/widget/conversations/${v.conversationId}/messages`).set('X-API-Key', publicKey).set('X-Visitor-Token', v.token).expect(200)
    ).body.messages;
    const { sources: _sources, ...replyMessage } = answer.body.reply;
    expect(listed.slice(-2)).toEqual([answer.body.message, replyMessage]);
    const conversation = (await t.http().get(`/api/v1/conversations/${v.conversationId}`).set('X-API-Key', tenant.key).expect(200)).body.conversation;
    expect(conversation).toMatchObject({ messageCount: listed.length, lastMessageAt: answer.body.reply.createdAt });
    expect((await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', tenant.key).expect(200)).body.bot.messageCount).toBe(before.bot + 2);
    expect(await usage()).toBe(before.usage + 1);
    const events = await t.prisma.webhookEvent.findMany({ where: { tenantId: tenant.id, type: 'message.created' } });
    const announced = events.map((event) => (event.data as { object: { id: string } }).object.id);
    expect(announced).toEqual(expect.arrayContaining([answer.body.message.id, answer.body.reply.id]));
  });

  it('answers a question the knowledge does not cover with the fallback message, no sources, marked unanswered', async () => {
    const v = await visitor();
    const fallback = (await t.http().get(`/api/v1/bots/${botId}/settings`).set('X-API-Key', tenant.key).expect(200)).body.settings.fallbackMessage;
    const answer = await send(v, 'Do you sell quantum telescopes for hamsters?').expect(201);
    expect(answer.body.reply).toMatchObject({ role: 'assistant', content: fallback, sources: [] });
    expect((await t.prisma.message.findUniqueOrThrow({ where: { id: answer.body.reply.id } })).unanswered).toBe(true);
    const overview = (await t.http().get('/api/v1/analytics/overview').set('X-API-Key', tenant.key).expect(200)).body;
    expect(overview.unansweredRate).toBeGreaterThan(0);
  });

  it("leaves the sources out when the bot's showSources is off", async () => {
    const quiet = (await createBot(t, tenant.id)).id;
    await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/${quiet}/documents`).send({ title: 'Plans and pricing', content: PRICING }).expect(201);
    await t.http().patch(`/api/v1/bots/${quiet}/settings`).set('X-API-Key', tenant.key).send({ showSources: false }).expect(200);
    const answer = await send(await visitor(quiet), 'What does the Business plan cost?').expect(201);
    expect(answer.body.reply).toMatchObject({ content: expect.stringContaining('199 EUR'), sources: [] });
  });

  it('streams the reply as server-sent events: deltas in order, then done with the JSON answer', async () => {
    const v = await visitor();
    const response = await send(v, 'How long does shipping take?').set('Accept', 'text/event-stream').buffer(true).parse(allEvents);
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const events = response.body as StreamedEvent[];
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.slice(0, -1).every((e) => e.event === 'delta')).toBe(true);
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toEqual({
      message: expect.objectContaining({ role: 'user', content: 'How long does shipping take?' }),
      reply: expect.objectContaining({ role: 'assistant', sources: [expect.objectContaining({ title: 'Shipping' })] }),
    });
    expect(
      events
        .slice(0, -1)
        .map((e) => e.data.text)
        .join(''),
    ).toBe(done.data.reply.content);
    expect(done.data.reply.content).toContain('two business days');
  });

  it('answers a refused stream with the status and envelope, not an event stream', async () => {
    const v = await visitor();
    await t
      .http()
      .post(`/api/v1/widget/conversations/${v.conversationId}/end`)
      .set('X-API-Key', publicKey)
      .set('X-Visitor-Token', v.token)
      .send({})
      .expect(200);
    const response = await send(v, 'Hello?').set('Accept', 'text/event-stream');
    expectError(response, 409, 'CONVERSATION_ENDED');
  });

  it.each([
    ['empty', '', 'must be 1 to 4000 characters'],
    ['blank', '   ', 'must be 1 to 4000 characters'],
    ['4,001 characters long', 'x'.repeat(4001), 'must be 1 to 4000 characters'],
    ['a number', 42, 'must be a string'],
  ])('refuses content that is %s', async (_label, content, message) => {
    expectError(await send(await visitor(), content), 400, 'VALIDATION_ERROR', [{ field: 'content', message }]);
  });

  it("limits each visitor to the tenant's visitorMessageLimit, with Retry-After, storing nothing beyond it", async () => {
    const limited = await createTenant(t, { plan: 'pro' });
    const key = (await createKey(t, limited.id, { type: 'public', scopes: [] })).key;
    const bot = (await createBot(t, limited.id)).id;
    await t
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', limited.key)
      .send({ visitorMessageLimit: { messages: 3, windowSeconds: 3600 } })
      .expect(200);
    const first = await visitor(bot, key);
    for (let i = 0; i < 3; i++) await send(first, `Question ${i}`).expect(201);
    const refused = await send(first, 'One too many');
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await t.prisma.message.count({ where: { conversationId: first.conversationId, role: 'user' } })).toBe(3);
    // Another visitor has its own allowance.
    await send(await visitor(bot, key), 'Hello').expect(201);
  });

  it("limits replies per client address (IPv6: per /64) and UTC day to the tenant's widgetLimits, whatever the visitor", async () => {
    const limited = await createTenant(t, { plan: 'pro' });
    const key = (await createKey(t, limited.id, { type: 'public', scopes: [] })).key;
    const bot = (await createBot(t, limited.id)).id;
    await t
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', limited.key)
      .send({ widgetLimits: { repliesPerIpPerDay: 3 } })
      .expect(200);
    const network = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}:`;
    const sendFrom = (from: string, v: Visitor, content: string) => send(v, content).set('X-Forwarded-For', from);
    // A new visitor (new session) for every message: minting sessions does not buy more replies.
    for (let i = 1; i <= 3; i++) await sendFrom(`${network}${i}::1`, await visitor(bot, key), `Question ${i}`).expect(201);
    const refused = await sendFrom(`${network}9::1`, await visitor(bot, key), 'One too many');
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    const untilMidnight = 86_400 - Math.floor((Date.now() % 86_400_000) / 1000);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(untilMidnight + 1);
    expect(await t.prisma.message.count({ where: { tenantId: limited.id, role: 'user' } })).toBe(3);
    // Another network has its own allowance.
    await sendFrom(`2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`, await visitor(bot, key), 'Hello').expect(201);
  });

  it("limits the whole tenant's widget replies per UTC day to widgetLimits.repliesPerDay, whatever the addresses, exactly under concurrency", async () => {
    const busy = await createTenant(t, { plan: 'pro' });
    const key = (await createKey(t, busy.id, { type: 'public', scopes: [] })).key;
    const bot = (await createBot(t, busy.id)).id;
    await t
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', busy.key)
      .send({ widgetLimits: { repliesPerDay: 5 } })
      .expect(200);
    // No welcome message: every assistant message counted below is a reply.
    await t.http().patch(`/api/v1/bots/${bot}/settings`).set('X-API-Key', busy.key).send({ welcomeMessage: null }).expect(200);
    // 30 visitors from 30 networks, each well under the per-address cap: together they may have 5 replies today.
    const visitors = await Promise.all(Array.from({ length: 30 }, () => visitor(bot, key)));
    const from = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;
    const answers = await Promise.all(visitors.map((v, i) => send(v, `Question number ${i}`).set('X-Forwarded-For', from())));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expectError(refused, 429, 'MESSAGE_LIMIT_REACHED');
      const untilMidnight = (86_400_000 - (Date.now() % 86_400_000)) / 1000;
      expect(Math.abs(Number(refused.headers['retry-after']) - untilMidnight)).toBeLessThan(120);
    }
    expect(await t.prisma.message.count({ where: { tenantId: busy.id, role: 'user' } })).toBe(5);
    expect(await t.prisma.message.count({ where: { tenantId: busy.id, role: 'assistant' } })).toBe(5);
    expect(await usage(busy.key)).toBe(5);
    expectError(await send(visitors[0], 'And now?').set('X-Forwarded-For', from()), 429, 'MESSAGE_LIMIT_REACHED');
    // A new UTC day starts a new count (the row's day moved back a day stands for tomorrow).
    await t.prisma.messageUsage.updateMany({ where: { tenantId: busy.id }, data: { widgetDay: new Date(Date.now() - 86_400_000) } });
    // The check before the answer reads a count up to a second old: ask until it has caught up.
    const deadline = Date.now() + 10_000;
    let status = 0;
    // Each visitor in turn, with a pause: one visitor asking again and again would meet its own visitorMessageLimit.
    for (let attempt = 0; status !== 201 && Date.now() < deadline; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await send(visitors[attempt % visitors.length], 'Tomorrow, then?').set('X-Forwarded-For', from())).status;
    }
    expect(status).toBe(201);
  });

  it("stores exactly the plan's monthly limit of replies under 50 concurrent messages, refusing the rest with Retry-After to next month", async () => {
    const busy = await createTenant(t, { plan: 'pro' });
    const key = (await createKey(t, busy.id, { type: 'public', scopes: [] })).key;
    const bot = (await createBot(t, busy.id)).id;
    // No welcome message: every assistant message counted below is a reply.
    await t.http().patch(`/api/v1/bots/${bot}/settings`).set('X-API-Key', busy.key).send({ welcomeMessage: null }).expect(200);
    const visitors = await Promise.all(Array.from({ length: 50 }, () => visitor(bot, key)));
    // The month has 10 replies left of the Pro plan's 10,000.
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    await t.prisma.messageUsage.create({ data: { tenantId: busy.id, month, count: 9_990 } });
    const answers = await Promise.all(visitors.map((v, i) => send(v, `Question number ${i}`)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expectError(refused, 429, 'MESSAGE_LIMIT_REACHED');
      expect(Math.abs(Number(refused.headers['retry-after']) - (nextMonth - Date.now()) / 1000)).toBeLessThan(120);
    }
    expect(await t.prisma.message.count({ where: { tenantId: busy.id, role: 'assistant' } })).toBe(10);
    expect(await t.prisma.message.count({ where: { tenantId: busy.id, role: 'user' } })).toBe(10);
    expect(await usage(busy.key)).toBe(10_000);
    expectError(await send(visitors[0], 'And now?'), 429, 'MESSAGE_LIMIT_REACHED');
  });

  it('uses an OpenAI-compatible model when one is configured, streaming its answer, and falls back when it fails', async () => {
    const requests: { authorization?: string; body: { model: string; stream: boolean; messages: { role: string; content: string }[] } }[] = [];
    let failing = false;
    const llm = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        requests.push({ authorization: req.headers.authorization, body: JSON.parse(body) });
        if (req.url !== '/v1/chat/completions' || failing) {
          res.writeHead(500).end('{"error":"down"}');
          return;
        }
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        for (const piece of ['The Pro plan ', 'is 49 EUR ', 'a month.']) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
    const llmApp = await createTestApp({
      LLM_BASE_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`,
      LLM_MODEL: 'test-model',
      LLM_API_KEY: 'sk-test-llm-key',
    });
    try {
      const owner = await createTenant(llmApp, { plan: 'pro' });
      const key = (await createKey(llmApp, owner.id, { type: 'public', scopes: [] })).key;
      const bot = (await createBot(llmApp, owner.id)).id;
      await llmApp.admin().post(`/admin/v1/tenants/${owner.id}/bots/${bot}/documents`).send({ title: 'Plans and pricing', content: PRICING }).expect(201);
      const token = (await llmApp.http().post('/api/v1/widget/sessions').set('X-API-Key', key).send({ botId: bot }).expect(201)).body.visitorToken;
      const conversation = (await llmApp.http().post('/api/v1/widget/conversations').set('X-API-Key', key).set('X-Visitor-Token', token).send({}).expect(201))
        .body.conversation.id;
      const ask = () =>
        llmApp
          .http()
          .post(`/api/v1/widget/conversations/${conversation}/messages`)
          .set('X-API-Key', key)
          .set('X-Visitor-Token', token)
          .send({ content: 'What does the Pro plan cost?' });

      const answered = await ask().expect(201);
      expect(answered.body.reply).toMatchObject({
        content: 'The Pro plan is 49 EUR a month.',
        sources: [expect.objectContaining({ title: 'Plans and pricing' })],
      });
      expect(requests).toHaveLength(1);
      expect(requests[0].authorization).toBe('Bearer sk-test-llm-key');
      expect(requests[0].body).toMatchObject({ model: 'test-model', stream: true });
      expect(JSON.stringify(requests[0].body.messages)).toContain('49 EUR per month');
      expect(JSON.stringify(requests[0].body.messages)).toContain('What does the Pro plan cost?');

      failing = true;
      const fallback = await ask().expect(201);
      expect(fallback.body.reply.content).toContain('49 EUR per month');
      expect(requests).toHaveLength(2);
    } finally {
      await llmApp.close();
      await new Promise((resolve) => llm.close(resolve));
    }
  });
});
