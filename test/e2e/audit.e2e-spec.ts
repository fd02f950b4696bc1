import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createTenant, TestTenant } from '../support/factories';

/** The audit log says who and what: every change the dashboard makes, with its actor and request id. */
describe('Audit log: who and what', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'business' });
  });
  afterAll(() => t.close());

  async function latestEvents(count: number) {
    return (await t.admin().get(`/admin/v1/tenants/${tenant.id}/audit-log?limit=${count}`).expect(200)).body.events;
  }

  it('records a bot rename and its avatar, colour and language changes as bot.updated, with from and to', async () => {
    const bot = await createBot(t, tenant.id, { name: 'Before', primaryColor: '#111111', language: 'en' });
    await t
      .admin()
      .patch(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}`)
      .set('X-Request-Id', 'rename-1')
      .send({ name: 'After', primaryColor: '#222222', language: 'de', avatarUrl: 'https://cdn.example.com/a.png' })
      .expect(200);
    const [updated] = await latestEvents(1);
    expect(updated).toMatchObject({
      actor: 'admin-api',
      requestId: 'rename-1',
      action: 'bot.updated',
      targetType: 'bot',
      targetId: bot.id,
      data: {
        changes: {
          name: { from: 'Before', to: 'After' },
          primaryColor: { from: '#111111', to: '#222222' },
          language: { from: 'en', to: 'de' },
          avatarUrl: { from: null, to: 'https://cdn.example.com/a.png' },
        },
      },
    });
  });

  it('records nothing for a bot update that changes nothing', async () => {
    const bot = await createBot(t, tenant.id, { name: 'Same' });
    const before = (await latestEvents(1))[0];
    await t.admin().patch(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}`).send({ name: 'Same' }).expect(200);
    expect((await latestEvents(1))[0]).toEqual(before);
  });

  it('records knowledge documents', async () => {
    const bot = await createBot(t, tenant.id);
    const document = (
      await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}/documents`)
        .set('X-Request-Id', 'doc-1')
        .send({ title: 'Pricing', content: 'Pro costs 49 EUR.' })
        .expect(201)
    ).body.document;
    expect((await latestEvents(1))[0]).toMatchObject({
      actor: 'admin-api',
      requestId: 'doc-1',
      action: 'knowledge_document.created',
      targetType: 'knowledge_document',
      targetId: document.id,
      data: { botId: bot.id, title: 'Pricing' },
    });
  });

  it('records recorded conversations with their message count and lead', async () => {
    const bot = await createBot(t, tenant.id);
    const conversation = (
      await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}/conversations`)
        .set('X-Request-Id', 'conv-1')
        .send({
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello' },
          ],
          lead: { name: 'Ada', email: 'ada@example.com' },
        })
        .expect(201)
    ).body.conversation;
    expect((await latestEvents(1))[0]).toMatchObject({
      actor: 'admin-api',
      requestId: 'conv-1',
      action: 'conversation.recorded',
      targetType: 'conversation',
      targetId: conversation.id,
      data: { botId: bot.id, messages: 2, leadId: conversation.leadId },
    });
    expect(conversation.leadId).toEqual(expect.any(String));
  });

  it("records a key's expiry with its creation", async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = (
      await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/api-keys`)
        .send({ name: 'Expiring', scopes: ['bots:read'], expiresAt })
        .expect(201)
    ).body.apiKey;
    expect((await latestEvents(1))[0]).toMatchObject({
      action: 'api_key.created',
      targetId: key.id,
      data: { name: 'Expiring', type: 'secret', scopes: ['bots:read'], expiresAt },
    });
  });

  it('records nothing when the change fails', async () => {
    const before = await latestEvents(100);
    await t.admin().post(`/admin/v1/tenants/${tenant.id}/bots/0190b6a0-0000-7000-8000-00000000dead/documents`).send({ title: 'x', content: 'y' }).expect(404);
    await t.http().post(`/admin/v1/tenants/${tenant.id}/bots`).set('Authorization', `Bearer ${ADMIN_TOKEN}x`).send({ name: 'Nope' }).expect(401);
    expect(await latestEvents(100)).toEqual(before);
  });
});
