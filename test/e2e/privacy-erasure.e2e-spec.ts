import type { ServerResponse } from 'node:http';
import { expectError, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { openTestDatabase } from '../support/test-database';
import { Received, WebhookReceiver } from '../support/webhook-receiver';
import { PRIVACY_OPTIONS, type PrivacyOptions } from '../../src/privacy/privacy-options';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';

/**
 * Export and erasure of one person (API_DECISIONS part 3, Privacy): the person's data reaches the
 * service through the widget, the API, an import and an idempotent create, and is copied into
 * webhook payloads and the receiver's answers; after the erasure no text or JSON column of any
 * table holds their e-mail, name or visitor id, while another person's data is intact.
 */
describe('Privacy: export and erasure of a person', () => {
  let t: TestApp;
  let worker: TestApp;
  let tenant: TestTenant;
  let elsewhere: TestTenant;
  let publicKey: string;
  let botId: string;
  const receiver = new WebhookReceiver();

  const EMAIL = 'zeb.quixote-erasure@example.com';
  const NAME = 'Zebulon Quixotewhistle';
  const OTHER_EMAIL = 'olga.otherperson@example.com';
  const OTHER_NAME = 'Olga Otherperson';

  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string, key = tenant.key) => t.http()[method](path).set('X-API-Key', key);
  const widget = (method: 'get' | 'post', path: string) => t.http()[method](`/api/v1/widget${path}`).set('X-API-Key', publicKey);

  /** A widget visitor who chats, writes their e-mail in a message, and leaves their contact details. */
  async function widgetVisitor(name: string, email: string): Promise<{ visitorId: string; conversationId: string; leadId: string }> {
    const { visitorToken, visitorId } = (await widget('post', '/sessions').send({ botId }).expect(201)).body;
    const { conversation } = (await widget('post', '/conversations').set('X-Visitor-Token', visitorToken).send({}).expect(201)).body;
    await widget('post', `/conversations/${conversation.id}/messages`)
      .set('X-Visitor-Token', visitorToken)
      .send({ content: `Hello, I am ${name}, write to ${email}` })
      .expect(201);
    const { lead } = (
      await widget('post', `/conversations/${conversation.id}/lead`)
        .set('X-Visitor-Token', visitorToken)
        .send({ name, email, message: `Call ${name} back` })
        .expect(201)
    ).body;
    return { visitorId, conversationId: conversation.id, leadId: lead.id };
  }

  /** Every row of every text, varchar, json, jsonb or text[] column of every table that contains `needle` (case-insensitively). */
  async function scan(needle: string): Promise<string[]> {
    const columns = await t.prisma.$queryRaw<{ table: string; column: string }[]>`
      SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
      WHERE table_schema = current_schema() AND (data_type IN ('text', 'character varying', 'json', 'jsonb') OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar')))`;
    expect(columns.length).toBeGreaterThan(40);
    const found: string[] = [];
    for (const { table, column } of columns) {
      const [{ count }] = await t.prisma.$queryRawUnsafe<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM "${table}" WHERE "${column}"::text ILIKE '%' || $1 || '%'`,
        needle,
      );
      if (count) found.push(`${table}.${column}: ${count}`);
    }
    return found;
  }

  beforeAll(async () => {
    await receiver.start();
    // The receiver answers with what it got: the service stores that answer, the person's data in it.
    receiver.respond = (request: Received, response: ServerResponse) => response.writeHead(200, { 'Content-Type': 'application/json' }).end(request.body);
    t = await createTestApp({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
    [tenant, elsewhere] = await Promise.all([createTenant(t, { plan: 'enterprise' }), createTenant(t, { plan: 'enterprise' })]);
    publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenant.id)).id;
    await api('post', '/api/v1/webhooks')
      .send({ url: receiver.url(), events: ['*'] })
      .expect(201);
    // A second instance on the same database runs the background work, for these tenants only.
    const env = { PRIVACY_WORKER: 'true', WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' };
    const connection = process.env.E2E_DATABASE_URL ? await openTestDatabase() : t.connection;
    worker = await createTestApp(env, { connection, privacy: { erasurePollMs: 50, tenantIds: [] }, webhookDelivery: { pollMs: 50, tenantIds: [] } });
    Object.assign(worker.app.get<PrivacyOptions>(PRIVACY_OPTIONS), { tenantIds: [tenant.id, elsewhere.id] });
    Object.assign(worker.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id, elsewhere.id] });
  });
  afterAll(async () => {
    await worker?.close();
    if (worker && worker.connection !== t.connection) await worker.connection.close();
    await t.close();
    await receiver.stop();
  });

  let person: { visitorId: string; conversationId: string; leadId: string; apiLeadId: string; importedLeadId: string };
  let other: { visitorId: string; conversationId: string; leadId: string; importedLeadId: string };
  let elsewhereLeadId: string;
  const createBody = { name: NAME, email: EMAIL.toUpperCase(), company: 'Quixote Ltd' };
  const importBody = {
    leads: [
      { name: NAME, email: EMAIL, phone: '+1 555 0100' },
      { name: OTHER_NAME, email: OTHER_EMAIL },
    ],
  };

  it("collects the person's data from the widget, the API, an import, an idempotent create and webhook deliveries", async () => {
    const chat = await widgetVisitor(NAME, EMAIL);
    const otherChat = await widgetVisitor(OTHER_NAME, OTHER_EMAIL);
    const created = (await api('post', '/api/v1/leads').set('Idempotency-Key', 'erase-create-1').send(createBody).expect(201)).body.lead;
    await api('patch', `/api/v1/leads/${created.id}`)
      .send({ status: 'contacted', tags: ['erasable'] })
      .expect(200);
    const imported = (await api('post', '/api/v1/leads/import').set('Idempotency-Key', 'erase-import-1').send(importBody).expect(201)).body.leads;
    person = { ...chat, apiLeadId: created.id, importedLeadId: imported[0].id };
    other = { ...otherChat, importedLeadId: imported[1].id };
    elsewhereLeadId = (await api('post', '/api/v1/leads', elsewhere.key).send({ name: NAME, email: EMAIL }).expect(201)).body.lead.id;
    // A value an audit row holds, as a change recorded with the person's data would.
    await t.prisma.auditEvent.create({
      data: { tenantId: tenant.id, actor: 'system', action: 'lead.noted', targetType: 'lead', targetId: created.id, data: { email: EMAIL, name: NAME } },
    });

    // Every event is delivered, and the receiver's answer (the payload itself) is stored.
    await receiver.until(
      async () =>
        (await t.prisma.webhookDelivery.count({ where: { tenantId: tenant.id, status: { not: 'succeeded' } } })) === 0 && receiver.received.length >= 10,
      20_000,
    );
    expect(await scan(EMAIL)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Lead\.email/),
        expect.stringMatching(/^WebhookEvent\.data/),
        expect.stringMatching(/^WebhookDelivery\.lastResponseBody/),
        expect.stringMatching(/^IdempotencyRecord\.responseBody/),
        expect.stringMatching(/^Message\.content/),
      ]),
    );
    expect(await scan(person.visitorId)).toEqual(expect.arrayContaining([expect.stringMatching(/^Conversation\.visitorId/)]));
  });

  it("exports exactly the person's leads and conversations with their messages, by e-mail or by visitor id, and nothing of another tenant", async () => {
    const byEmail = (await api('post', '/api/v1/privacy/exports').send({ email: EMAIL.toUpperCase() }).expect(200)).body;
    const byVisitor = (await api('post', '/api/v1/privacy/exports').send({ visitorId: person.visitorId }).expect(200)).body;
    expect(byVisitor).toEqual(byEmail);
    expect(byEmail.leads.map((lead: { id: string }) => lead.id).sort()).toEqual([person.leadId, person.apiLeadId, person.importedLeadId].sort());
    expect(byEmail.leads.map((lead: { id: string }) => lead.id)).not.toContain(elsewhereLeadId);
    for (const lead of byEmail.leads) expect(lead.email.toLowerCase()).toBe(EMAIL);
    expect(byEmail.conversations).toHaveLength(1);
    const [conversation] = byEmail.conversations;
    expect(conversation).toMatchObject({ id: person.conversationId, visitorId: person.visitorId, leadId: person.leadId });
    expect(conversation.messages.length).toBe(conversation.messageCount);
    expect(conversation.messages.some((message: { content: string }) => message.content.includes(EMAIL))).toBe(true);
    expect(JSON.stringify(byEmail)).not.toContain(OTHER_EMAIL);
    // The other tenant sees only its own copy of the person.
    const theirs = (await api('post', '/api/v1/privacy/exports', elsewhere.key).send({ email: EMAIL }).expect(200)).body;
    expect(theirs).toEqual({ leads: [expect.objectContaining({ id: elsewhereLeadId })], conversations: [] });
    expect((await api('post', '/api/v1/privacy/exports').send({ email: 'nobody@example.com' }).expect(200)).body).toEqual({ leads: [], conversations: [] });
  });

  it('refuses a body without exactly one of email and visitorId, and keys without privacy:manage', async () => {
    expectError(await api('post', '/api/v1/privacy/exports').send({}), 400, 'VALIDATION_ERROR', [{ field: 'email', message: 'give email or visitorId' }]);
    for (const path of ['/api/v1/privacy/exports', '/api/v1/privacy/erasures']) {
      // No body at all (no Content-Type either), or one that names nobody: never an empty export or erasure.
      expectError(await api('post', path), 400, 'VALIDATION_ERROR', [{ field: 'email', message: 'give email or visitorId' }]);
      expectError(await api('post', path).set('Content-Type', 'application/json').send(''), 400, 'VALIDATION_ERROR', [
        { field: 'email', message: 'give email or visitorId' },
      ]);
      for (const email of ['not-an-email', 'zeb@', '@example.com', 'two words@example.com']) {
        expectError(await api('post', path).send({ email }), 400, 'VALIDATION_ERROR', [{ field: 'email', message: 'must be a valid e-mail address' }]);
      }
      expectError(await api('post', path).send({ email: '   ' }), 400, 'VALIDATION_ERROR', [{ field: 'email', message: 'must not be empty' }]);
      expectError(await api('post', path).send({ visitorId: '' }), 400, 'VALIDATION_ERROR', [{ field: 'visitorId', message: 'must not be empty' }]);
      expectError(await api('post', path).send({ email: null }), 400, 'VALIDATION_ERROR', [{ field: 'email', message: expect.any(String) }]);
    }
    expect(await t.prisma.privacyErasure.count({ where: { tenantId: tenant.id } })).toBe(0);
    expectError(await api('post', '/api/v1/privacy/erasures').send({ email: EMAIL, visitorId: 'v' }), 400, 'VALIDATION_ERROR', [
      { field: 'email', message: 'give either email or visitorId, not both' },
    ]);
    expectError(await api('post', '/api/v1/privacy/exports').send({ email: EMAIL, extra: 1 }), 400, 'VALIDATION_ERROR', [
      { field: 'extra', message: expect.any(String) },
    ]);
    const noPrivacy = (await createKey(t, tenant.id, { scopes: ['leads:read', 'leads:write', 'conversations:read'] })).key;
    expectError(await api('post', '/api/v1/privacy/exports', noPrivacy).send({ email: EMAIL }), 403, 'INSUFFICIENT_SCOPE');
    expectError(await api('post', '/api/v1/privacy/erasures', noPrivacy).send({ email: EMAIL }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('erases the person: 202 pending with the counts, completed within seconds, and no column of any table holds them any more', async () => {
    const messages = (await api('get', `/api/v1/conversations/${person.conversationId}/messages`).expect(200)).body.pagination.total;
    const response = await api('post', '/api/v1/privacy/erasures').set('Idempotency-Key', 'erasure-1').send({ email: EMAIL }).expect(202);
    expect(response.body).toEqual({
      erasure: {
        id: expect.stringMatching(UUID),
        status: 'pending',
        counts: { leads: 3, conversations: 1, messages },
        createdAt: expect.any(String),
        completedAt: null,
      },
    });
    const { id } = response.body.erasure;
    // The retry gets the same answer and queues nothing more.
    const replay = await api('post', '/api/v1/privacy/erasures').set('Idempotency-Key', 'erasure-1').send({ email: EMAIL }).expect(202);
    expect(replay.body).toEqual(response.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');

    await receiver.until(async () => (await api('get', `/api/v1/privacy/erasures/${id}`).expect(200)).body.erasure.status === 'completed', 10_000);
    expect((await api('get', `/api/v1/privacy/erasures/${id}`).expect(200)).body.erasure).toEqual({
      ...response.body.erasure,
      status: 'completed',
      completedAt: expect.any(String),
    });
    expectError(await api('get', `/api/v1/privacy/erasures/${id}`, elsewhere.key), 404, 'NOT_FOUND');

    expect(await scan(EMAIL)).toEqual([`Lead.email: 1`, `Lead.searchText: 1`]);
    expect(await scan(NAME)).toEqual([`Lead.name: 1`, `Lead.searchText: 1`]);
    expect(await scan(person.visitorId)).toEqual([]);
    for (const id of [person.leadId, person.apiLeadId, person.importedLeadId]) expectError(await api('get', `/api/v1/leads/${id}`), 404, 'NOT_FOUND');
    expectError(await api('get', `/api/v1/conversations/${person.conversationId}`), 404, 'NOT_FOUND');
    // The rows left are the other tenant's: its copy of the person is its own to erase.
    await api('get', `/api/v1/leads/${elsewhereLeadId}`, elsewhere.key).expect(200);
    await api('delete', `/api/v1/leads/${elsewhereLeadId}`, elsewhere.key).expect(204);
    expect(await scan(EMAIL)).toEqual([]);
    expect(await scan(NAME)).toEqual([]);
    // The action of the audit row stays, its values are gone.
    expect(await t.prisma.auditEvent.findFirst({ where: { tenantId: tenant.id, action: 'lead.noted' }, select: { action: true, data: true } })).toEqual({
      action: 'lead.noted',
      data: { redacted: true },
    });
  });

  it("leaves the other person's data intact", async () => {
    expect((await api('get', `/api/v1/leads/${other.leadId}`).expect(200)).body.lead).toMatchObject({ name: OTHER_NAME, email: OTHER_EMAIL });
    expect((await api('get', `/api/v1/leads/${other.importedLeadId}`).expect(200)).body.lead).toMatchObject({ name: OTHER_NAME, email: OTHER_EMAIL });
    const messages = (await api('get', `/api/v1/conversations/${other.conversationId}/messages`).expect(200)).body.messages;
    expect(messages.some((message: { content: string }) => message.content.includes(OTHER_EMAIL))).toBe(true);
    expect((await api('get', `/api/v1/conversations/${other.conversationId}`).expect(200)).body.conversation.visitorId).toBe(other.visitorId);
    // Their events are sent and stored as they were.
    expect((await scan(OTHER_EMAIL)).filter((hit) => hit.startsWith('WebhookEvent.data') || hit.startsWith('WebhookDelivery.lastResponseBody'))).toHaveLength(
      2,
    );
    const exported = (await api('post', '/api/v1/privacy/exports').send({ email: OTHER_EMAIL }).expect(200)).body;
    expect(exported.leads.map((lead: { id: string }) => lead.id).sort()).toEqual([other.leadId, other.importedLeadId].sort());
  });

  it('never brings an erased lead back: a replay of its idempotent create or import is 410 and creates nothing', async () => {
    expectError(await api('post', '/api/v1/leads').set('Idempotency-Key', 'erase-create-1').send(createBody), 410, 'IDEMPOTENCY_RECORD_ERASED');
    expectError(await api('post', '/api/v1/leads/import').set('Idempotency-Key', 'erase-import-1').send(importBody), 410, 'IDEMPOTENCY_RECORD_ERASED');
    // Another request with the key is still a reuse.
    expectError(
      await api('post', '/api/v1/leads').set('Idempotency-Key', 'erase-create-1').send({ name: 'Someone', email: 'someone@example.com' }),
      409,
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect(await scan(EMAIL)).toEqual([]);
    expect((await api('get', `/api/v1/leads?search=${encodeURIComponent('quixote')}`).expect(200)).body.pagination.total).toBe(0);
  });

  it('the bot figures still equal the lists after the erasure', async () => {
    const bot = (await api('get', `/api/v1/bots/${botId}`).expect(200)).body.bot;
    const conversations = (await api('get', `/api/v1/conversations?botId=${botId}`).expect(200)).body;
    let messages = 0;
    for (const conversation of conversations.conversations)
      messages += (await api('get', `/api/v1/conversations/${conversation.id}/messages`).expect(200)).body.pagination.total;
    expect({ conversationCount: bot.conversationCount, messageCount: bot.messageCount }).toEqual({
      conversationCount: conversations.pagination.total,
      messageCount: messages,
    });
  });
});
