import { v7 } from 'uuid';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';
import { openTestDatabase } from '../support/test-database';
import { PRIVACY_OPTIONS, type PrivacyOptions } from '../../src/privacy/privacy-options';
import { RetentionSweeper } from '../../src/privacy/retention-sweeper';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/**
 * The retention sweep (API_DECISIONS part 3, Privacy): conversations and leads past the tenant's
 * retention, webhook events and deliveries older than 30 days, expired idempotency records and
 * audit rows older than AUDIT_RETENTION_DAYS go, in batches, on one instance at a time.
 */
describe('Privacy: the retention sweep', () => {
  let first: TestApp;
  let second: TestApp;
  let tenant: TestTenant;
  let keeper: TestTenant;

  beforeAll(async () => {
    first = await createTestApp({ AUDIT_RETENTION_DAYS: '100' });
    const connection = process.env.E2E_DATABASE_URL ? await openTestDatabase() : first.connection;
    second = await createTestApp({ AUDIT_RETENTION_DAYS: '100' }, { connection });
    [tenant, keeper] = await Promise.all([createTenant(first), createTenant(first)]);
    // Each instance sweeps these tenants only (the suites share one database on PostgreSQL).
    for (const app of [first, second]) Object.assign(app.app.get<PrivacyOptions>(PRIVACY_OPTIONS), { tenantIds: [tenant.id, keeper.id] });
  });
  afterAll(async () => {
    await second.close();
    if (second.connection !== first.connection) await second.connection.close();
    await first.close();
  });

  it('deletes exactly the rows past their cut-off, once, from two instances sweeping at once while inserts go on', async () => {
    const { prisma } = first;
    await first
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', tenant.key)
      .send({ retention: { conversationDays: 30, leadDays: 60 } })
      .expect(200);
    const botId = (await createBot(first, tenant.id)).id;
    const keeperBot = (await createBot(first, keeper.id)).id;
    const old = (days: number) => ({
      createdAt: daysAgo(days).toISOString(),
      messages: [{ role: 'user', content: 'old', createdAt: daysAgo(days).toISOString() }],
    });
    const oldConversations = await Promise.all([recordConversation(first, tenant.id, botId, old(45)), recordConversation(first, tenant.id, botId, old(31))]);
    // Started long ago, but its last message is recent: still going on, kept.
    const ongoing = await recordConversation(first, tenant.id, botId, {
      createdAt: daysAgo(90).toISOString(),
      messages: [{ role: 'user', content: 'still here', createdAt: daysAgo(2).toISOString() }],
    });
    const recent = await recordConversation(first, tenant.id, botId, old(29));
    const keeperOld = await recordConversation(first, keeper.id, keeperBot, old(400));

    const lead = (tenantId: string, days: number) => ({
      id: v7(),
      tenantId,
      name: 'Old Lead',
      email: 'old@example.com',
      source: 'api' as const,
      tags: [],
      createdAt: daysAgo(days),
      updatedAt: daysAgo(days),
    });
    const oldLeads = [lead(tenant.id, 61), lead(tenant.id, 365)];
    const keptLeads = [lead(tenant.id, 59), lead(keeper.id, 1000)];
    await prisma.lead.createMany({ data: [...oldLeads, ...keptLeads] });

    const endpoint = await prisma.webhookEndpoint.create({
      data: { tenantId: tenant.id, url: 'https://hooks.example.com/in', events: ['*'], enabled: false, secret: 'whsec_dGVzdA==' },
      select: { id: true },
    });
    const event = async (days: number) => {
      const { id } = await prisma.webhookEvent.create({
        data: { tenantId: tenant.id, type: 'webhook.test', data: { object: {} }, createdAt: daysAgo(days) },
        select: { id: true },
      });
      await prisma.webhookDelivery.create({
        data: {
          tenantId: tenant.id,
          endpointId: endpoint.id,
          eventId: id,
          eventType: 'webhook.test',
          status: 'succeeded',
          nextAttemptAt: null,
          createdAt: daysAgo(days),
        },
      });
      return id;
    };
    const oldEvents = [await event(31), await event(40)];
    const keptEvent = await event(29);

    await prisma.idempotencyRecord.createMany({
      data: [
        { tenantId: tenant.id, key: 'expired', requestHash: 'x', status: 201, responseBody: {}, createdAt: daysAgo(2), expiresAt: daysAgo(1) },
        { tenantId: tenant.id, key: 'live', requestHash: 'x', status: 201, responseBody: {}, createdAt: new Date(), expiresAt: new Date(Date.now() + DAY) },
      ],
    });
    // More old audit rows than one batch holds.
    const OLD_AUDIT = 2_500;
    await prisma.auditEvent.createMany({
      data: Array.from({ length: OLD_AUDIT }, () => ({
        tenantId: keeper.id,
        actor: 'system',
        action: 'test.old',
        targetType: 'test',
        targetId: '-',
        createdAt: daysAgo(101),
      })),
    });
    await prisma.auditEvent.create({
      data: { tenantId: keeper.id, actor: 'system', action: 'test.recent', targetType: 'test', targetId: '-', createdAt: daysAgo(99) },
    });

    // Inserts go on while two instances sweep at once.
    let inserting = true;
    const inserted: string[] = [];
    const inserts = (async () => {
      while (inserting) inserted.push((await createLead(first, tenant.key)).id);
    })();
    const [a, b] = await Promise.all([first.app.get(RetentionSweeper).sweep({ force: true }), second.app.get(RetentionSweeper).sweep({ force: true })]);
    inserting = false;
    await inserts;

    // One instance ran the sweep; the other found it taken.
    expect([a, b].filter((counts) => counts === null)).toHaveLength(1);
    expect(a ?? b).toEqual({ messages: 2, conversations: 2, leads: 2, webhookDeliveries: 2, webhookEvents: 2, idempotencyRecords: 1, auditEvents: OLD_AUDIT });

    for (const { id } of oldConversations) expect(await prisma.conversation.count({ where: { id } })).toBe(0);
    for (const { id } of [ongoing, recent, keeperOld]) expect(await prisma.conversation.count({ where: { id } })).toBe(1);
    expect(await prisma.lead.count({ where: { id: { in: oldLeads.map((l) => l.id) } } })).toBe(0);
    expect(await prisma.lead.count({ where: { id: { in: [...keptLeads.map((l) => l.id), ...inserted] } } })).toBe(keptLeads.length + inserted.length);
    expect(await prisma.webhookEvent.count({ where: { id: { in: oldEvents } } })).toBe(0);
    expect(await prisma.webhookEvent.count({ where: { id: keptEvent } })).toBe(1);
    expect((await prisma.idempotencyRecord.findMany({ where: { tenantId: tenant.id }, select: { key: true } })).map((r) => r.key)).toEqual(['live']);
    expect(await prisma.auditEvent.count({ where: { tenantId: keeper.id, action: 'test.old' } })).toBe(0);
    expect(await prisma.auditEvent.count({ where: { tenantId: keeper.id, action: 'test.recent' } })).toBe(1);

    // The figures follow: the bot's counters and the lead total equal the lists.
    const api = (path: string) => first.http().get(path).set('X-API-Key', tenant.key).expect(200);
    const bot = (await api(`/api/v1/bots/${botId}`)).body.bot;
    expect({ conversationCount: bot.conversationCount, messageCount: bot.messageCount }).toEqual({ conversationCount: 2, messageCount: 2 });
    expect((await api('/api/v1/leads')).body.pagination.total).toBe(1 + inserted.length);

    // A second sweep right after finds nothing more.
    expect(await first.app.get(RetentionSweeper).sweep({ force: true })).toEqual({
      messages: 0,
      conversations: 0,
      leads: 0,
      webhookDeliveries: 0,
      webhookEvents: 0,
      idempotencyRecords: 0,
      auditEvents: 0,
    });
  });

  it('runs hourly: once done, a sweep that is not forced is not due', async () => {
    await first.app.get(RetentionSweeper).sweep({ force: true });
    expect(await first.app.get(RetentionSweeper).sweep()).toBeNull();
    expect(await second.app.get(RetentionSweeper).sweep()).toBeNull();
  });
});
