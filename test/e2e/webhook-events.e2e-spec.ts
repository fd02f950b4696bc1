import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createTenant, TestTenant } from '../support/factories';

/**
 * Events are recorded in the transaction of the change, from every path that makes one: the
 * outbox holds exactly the events of committed changes, for exactly the subscribed, enabled
 * endpoints of the tenant. (Delivery is tested in webhook-delivery; this app delivers nothing.)
 */
describe('Webhook events: the outbox', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let all: string;
  let leadsOnly: string;
  let disabled: string;
  let foreign: string;

  const endpoint = (tenantId: string, events: string[], enabled = true) =>
    t.prisma.webhookEndpoint
      .create({
        data: { tenantId, url: 'https://hooks.example.com/in', events, enabled, disabledReason: enabled ? null : 'manual', secret: 'whsec_dGVzdA==' },
        select: { id: true },
      })
      .then((row) => row.id);

  /** The events queued since `since`, per endpoint: [type, payload data]. */
  async function queuedSince(
    since: Date,
    endpointId: string,
  ): Promise<{ type: string; data: { object: Record<string, unknown>; previousAttributes?: Record<string, unknown> } }[]> {
    const deliveries = await t.prisma.webhookDelivery.findMany({
      where: { endpointId, createdAt: { gte: since } },
      // The order the events happened in (a transaction's share its time): as the worker sends them.
      orderBy: [{ createdAt: 'asc' }, { eventId: 'asc' }],
      select: { status: true, event: { select: { type: true, data: true } } },
    });
    for (const delivery of deliveries) expect(delivery.status).toBe('pending');
    return deliveries.map((delivery) => delivery.event as never);
  }

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_WORKER: 'false' });
    [tenant, other] = await Promise.all([createTenant(t, { plan: 'enterprise' }), createTenant(t, { plan: 'enterprise' })]);
    all = await endpoint(tenant.id, ['*']);
    leadsOnly = await endpoint(tenant.id, ['lead.created']);
    disabled = await endpoint(tenant.id, ['*'], false);
    foreign = await endpoint(other.id, ['*']);
  });
  afterAll(() => t.close());

  it('queues lead.created with the lead exactly as the API returned it, for the subscribed endpoints only', async () => {
    const since = new Date();
    const created = await t
      .http()
      .post('/api/v1/leads')
      .set('X-API-Key', tenant.key)
      .send({ name: 'Ada', email: 'ada@example.com', tags: ['vip'] })
      .expect(201);
    expect(await queuedSince(since, all)).toEqual([{ type: 'lead.created', data: { object: created.body.lead } }]);
    expect(await queuedSince(since, leadsOnly)).toEqual([{ type: 'lead.created', data: { object: created.body.lead } }]);
    expect(await queuedSince(since, disabled)).toEqual([]);
    expect(await queuedSince(since, foreign)).toEqual([]);
  });

  it('queues lead.updated with previousAttributes on a status move', async () => {
    const lead = (await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).send({ name: 'Bo', email: 'bo@example.com' }).expect(201)).body.lead;
    const since = new Date();
    const moved = (await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).send({ status: 'contacted' }).expect(200)).body.lead;
    expect(await queuedSince(since, all)).toEqual([
      { type: 'lead.updated', data: { object: moved, previousAttributes: { status: 'new', updatedAt: lead.updatedAt } } },
    ]);
    expect(await queuedSince(since, leadsOnly)).toEqual([]);
  });

  it('queues nothing for a change that rolled back or did not happen', async () => {
    const since = new Date();
    await t
      .http()
      .post('/api/v1/leads')
      .set('X-API-Key', tenant.key)
      .send({ name: 'Cy', email: 'cy@example.com', botId: '0190b6a0-0000-7000-8000-00000000dead' })
      .expect(400);
    const lead = (await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).send({ name: 'Di', email: 'di@example.com' }).expect(201)).body.lead;
    await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).send({ status: 'converted' }).expect(409);
    await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).send({ status: 'new' }).expect(200);
    expect((await queuedSince(since, all)).map((event) => event.type)).toEqual(['lead.created']);
  });

  it('queues bot.updated for a dashboard change, the state included, and nothing for a no-op', async () => {
    const bot = await createBot(t, tenant.id, { name: 'Helper' });
    const since = new Date();
    const updated = (await t.admin().patch(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}`).send({ name: 'Helper 2', isActive: false }).expect(200)).body.bot;
    await t.admin().patch(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}`).send({ name: 'Helper 2' }).expect(200);
    const [event, ...rest] = await queuedSince(since, all);
    expect(rest).toEqual([]);
    expect(event).toEqual({
      type: 'bot.updated',
      data: { object: updated, previousAttributes: { name: 'Helper', isActive: true, updatedAt: expect.any(String) } },
    });
  });

  it('queues a recorded conversation as it would have come live: started, each message, ended, and its lead', async () => {
    const bot = await createBot(t, tenant.id);
    const since = new Date();
    const conversation = (
      await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/bots/${bot.id}/conversations`)
        .send({
          status: 'ended',
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello' },
          ],
          lead: { name: 'Eve', email: 'eve@example.com' },
        })
        .expect(201)
    ).body.conversation;
    const messages = (await t.http().get(`/api/v1/conversations/${conversation.id}/messages`).set('X-API-Key', tenant.key).expect(200)).body.messages;
    const lead = (await t.http().get(`/api/v1/leads/${conversation.leadId}`).set('X-API-Key', tenant.key).expect(200)).body.lead;
    expect(await queuedSince(since, all)).toEqual([
      { type: 'lead.created', data: { object: lead } },
      { type: 'conversation.started', data: { object: conversation } },
      { type: 'message.created', data: { object: messages[0] } },
      { type: 'message.created', data: { object: messages[1] } },
      { type: 'conversation.ended', data: { object: conversation } },
    ]);
    expect(await queuedSince(since, leadsOnly)).toEqual([{ type: 'lead.created', data: { object: lead } }]);
    expect(await queuedSince(since, foreign)).toEqual([]);
  });
});
