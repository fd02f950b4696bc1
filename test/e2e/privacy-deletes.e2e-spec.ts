import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';

/**
 * DELETE /api/v1/leads/:id and /api/v1/conversations/:id (API_DECISIONS part 3, Privacy): 204,
 * an event carrying the id only, and every figure that counted the row follows it.
 */
describe('Privacy: deleting a lead or a conversation', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let botId: string;
  let endpointId: string;

  const get = (path: string, key = tenant.key) => t.http().get(path).set('X-API-Key', key);
  const del = (path: string, key = tenant.key) => t.http().delete(path).set('X-API-Key', key);

  /** The events queued for the tenant's endpoint since `since`: [type, data]. */
  const queuedSince = async (since: Date) =>
    (
      await t.prisma.webhookDelivery.findMany({
        where: { endpointId, createdAt: { gte: since } },
        orderBy: [{ createdAt: 'asc' }, { eventId: 'asc' }],
        select: { event: { select: { type: true, data: true } } },
      })
    ).map((delivery) => delivery.event);

  /** The bot's figures and what the lists count: they must agree. */
  async function figures() {
    const bot = (await get(`/api/v1/bots/${botId}`).expect(200)).body.bot;
    const conversations = (await get(`/api/v1/conversations?botId=${botId}`).expect(200)).body;
    let messages = 0;
    for (const conversation of conversations.conversations)
      messages += (await get(`/api/v1/conversations/${conversation.id}/messages`).expect(200)).body.pagination.total;
    const leads = (await get('/api/v1/leads').expect(200)).body.pagination.total;
    const leadsOfBot = (await get(`/api/v1/leads?botId=${botId}`).expect(200)).body.pagination.total;
    const searched = (await get('/api/v1/leads?search=example').expect(200)).body.pagination.total;
    const overview = (await get('/api/v1/analytics/overview').expect(200)).body;
    return {
      bot: { messageCount: bot.messageCount, conversationCount: bot.conversationCount },
      conversations: conversations.pagination.total,
      messages,
      leads,
      leadsOfBot,
      searched,
      overview,
    };
  }

  beforeAll(async () => {
    t = await createTestApp();
    [tenant, other] = await Promise.all([createTenant(t), createTenant(t)]);
    botId = (await createBot(t, tenant.id)).id;
    endpointId = (
      await t.prisma.webhookEndpoint.create({
        data: { tenantId: tenant.id, url: 'https://hooks.example.com/in', events: ['*'], secret: 'whsec_dGVzdA==' },
        select: { id: true },
      })
    ).id;
  });
  afterAll(() => t.close());

  it('deletes a lead: 204, lead.deleted with its id only, counts and analytics follow, then 404', async () => {
    const lead = await createLead(t, tenant.key, { botId });
    await createLead(t, tenant.key, { botId });
    const before = await figures();
    const since = new Date();
    const response = await del(`/api/v1/leads/${lead.id}`).expect(204);
    expect(response.text).toBe('');
    expect(await queuedSince(since)).toEqual([{ type: 'lead.deleted', data: { object: { id: lead.id } } }]);
    const after = await figures();
    expect(after.leads).toBe(before.leads - 1);
    expect(after.leadsOfBot).toBe(before.leadsOfBot - 1);
    expect(after.searched).toBe(before.searched - 1);
    expect(after.overview.leads).toBe(before.overview.leads - 1);
    expect(after.overview.leads).toBe(after.leads);
    expectError(await get(`/api/v1/leads/${lead.id}`), 404, 'NOT_FOUND');
    expectError(await del(`/api/v1/leads/${lead.id}`), 404, 'NOT_FOUND');
    const audit = await t.prisma.auditEvent.findFirst({ where: { tenantId: tenant.id, action: 'lead.deleted', targetId: lead.id }, select: { actor: true } });
    expect(audit).toEqual({ actor: `api-key:${tenant.keyId}` });
  });

  it('deletes a conversation with its messages: 204, conversation.deleted, the bot figures equal the lists, its lead stays', async () => {
    const kept = await recordConversation(t, tenant.id, botId);
    const doomed = await recordConversation(t, tenant.id, botId, {
      messages: [
        { role: 'user', content: 'One' },
        { role: 'assistant', content: 'Two' },
        { role: 'user', content: 'Three' },
      ],
      lead: { name: 'Chatty Person', email: 'chatty@example.com' },
    });
    const before = await figures();
    expect(before.bot).toEqual({ messageCount: before.messages, conversationCount: before.conversations });
    const since = new Date();
    await del(`/api/v1/conversations/${doomed.id}`).expect(204);
    expect(await queuedSince(since)).toEqual([{ type: 'conversation.deleted', data: { object: { id: doomed.id } } }]);
    const after = await figures();
    expect(after.bot).toEqual({ messageCount: before.bot.messageCount - 3, conversationCount: before.bot.conversationCount - 1 });
    expect(after.bot).toEqual({ messageCount: after.messages, conversationCount: after.conversations });
    expect(after.overview.conversations).toBe(after.conversations);
    expect(after.overview.messages.user + after.overview.messages.assistant + after.overview.messages.agent).toBe(after.messages);
    expect(await t.prisma.message.count({ where: { conversationId: doomed.id } })).toBe(0);
    expectError(await get(`/api/v1/conversations/${doomed.id}`), 404, 'NOT_FOUND');
    expectError(await get(`/api/v1/conversations/${doomed.id}/messages`), 404, 'NOT_FOUND');
    expect((await get(`/api/v1/leads/${doomed.leadId}`).expect(200)).body.lead).toMatchObject({ conversationId: null, email: 'chatty@example.com' });
    await get(`/api/v1/conversations/${kept.id}`).expect(200);
  });

  it("is 404 for another tenant's lead or conversation, and for a malformed id; nothing is deleted", async () => {
    const lead = await createLead(t, tenant.key);
    const conversation = await recordConversation(t, tenant.id, botId);
    expectError(await del(`/api/v1/leads/${lead.id}`, other.key), 404, 'NOT_FOUND');
    expectError(await del(`/api/v1/conversations/${conversation.id}`, other.key), 404, 'NOT_FOUND');
    expectError(await del('/api/v1/leads/not-a-uuid'), 404, 'NOT_FOUND');
    expectError(await del('/api/v1/conversations/not-a-uuid'), 404, 'NOT_FOUND');
    await get(`/api/v1/leads/${lead.id}`).expect(200);
    await get(`/api/v1/conversations/${conversation.id}`).expect(200);
  });

  it('needs leads:write for a lead and conversations:write for a conversation', async () => {
    const lead = await createLead(t, tenant.key);
    const conversation = await recordConversation(t, tenant.id, botId);
    const readOnly = (await createKey(t, tenant.id, { scopes: ['leads:read', 'conversations:read'] })).key;
    expectError(await del(`/api/v1/leads/${lead.id}`, readOnly), 403, 'INSUFFICIENT_SCOPE');
    expectError(await del(`/api/v1/conversations/${conversation.id}`, readOnly), 403, 'INSUFFICIENT_SCOPE');
    const writer = (await createKey(t, tenant.id, { scopes: ['leads:write', 'conversations:write'] })).key;
    await del(`/api/v1/leads/${lead.id}`, writer).expect(204);
    await del(`/api/v1/conversations/${conversation.id}`, writer).expect(204);
  });
});
