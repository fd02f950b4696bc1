import { randomUUID } from 'node:crypto';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, recordConversation } from '../support/factories';
import { addMember, asUser, signUp, TestUser } from '../support/users';

const PRICING = 'Pricing. The Pro plan costs 49 EUR per month and includes 10,000 messages.';

describe('Human handoff (conversations:write)', () => {
  let t: TestApp;
  let owner: TestUser;
  let agent: TestUser;
  let otherAgent: TestUser;
  let viewer: TestUser;
  let tenantId: string;
  let key: string;
  let publicKey: string;
  let botId: string;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await signUp(t, { name: 'Olivia Owner' });
    tenantId = owner.tenantId;
    agent = await addMember(t, owner, 'agent');
    otherAgent = await addMember(t, owner, 'agent');
    viewer = await addMember(t, owner, 'viewer');
    await t.admin().patch(`/admin/v1/tenants/${tenantId}`).send({ plan: 'pro' }).expect(200);
    key = (await createKey(t, tenantId)).key;
    publicKey = (await createKey(t, tenantId, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenantId, { language: 'en' })).id;
    await t.admin().post(`/admin/v1/tenants/${tenantId}/bots/${botId}/documents`).send({ title: 'Pricing', content: PRICING }).expect(201);
    await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', key)
      .send({ url: 'https://hooks.example.com/in', events: ['*'] })
      .expect(201);
  });
  afterAll(() => t.close());

  const api = (method: 'post' | 'put' | 'get', path: string) => t.http()[method](path).set('X-API-Key', key);
  const conversation = async () => (await recordConversation(t, tenantId, botId)).id;
  const eventsOf = async (conversationId: string) =>
    (await t.prisma.webhookEvent.findMany({ where: { tenantId }, orderBy: { id: 'asc' } }))
      .filter((event) => {
        const object = (event.data as { object: { id: string; conversationId?: string } }).object;
        return object.id === conversationId || object.conversationId === conversationId;
      })
      .map((event) => event.type);
  const widgetVisitor = async () => {
    const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId }).expect(201)).body.visitorToken as string;
    const id = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', publicKey).set('X-Visitor-Token', token).send({}).expect(201)).body
      .conversation.id as string;
    const widget = (method: 'get' | 'post', path: string) =>
      t.http()[method](`/api/v1/widget/conversations/${id}${path}`).set('X-API-Key', publicKey).set('X-Visitor-Token', token);
    return { id, token, widget };
  };
  const usage = async () => (await api('get', '/api/v1/verify').expect(200)).body.usage.messagesThisMonth as number;

  describe('POST /conversations/:id/handoff', () => {
    it('hands an active conversation off (200), again unchanged, and sends conversation.handed_off once', async () => {
      const id = await conversation();
      const first = await api('post', `/api/v1/conversations/${id}/handoff`).send({}).expect(200);
      expect(first.body.conversation).toMatchObject({
        id,
        status: 'handed_off',
        handedOffAt: expect.stringMatching(ISO_MS),
        assigneeId: null,
        waitingSince: null,
      });
      const again = await api('post', `/api/v1/conversations/${id}/handoff`).expect(200);
      expect(again.body.conversation).toEqual(first.body.conversation);
      expect((await eventsOf(id)).filter((type) => type === 'conversation.handed_off')).toHaveLength(1);
    });

    it('answers 409 CONVERSATION_ENDED for an ended conversation and 404 for unknown, malformed or foreign ids', async () => {
      const id = await conversation();
      await api('post', `/api/v1/conversations/${id}/end`).expect(200);
      expectError(await api('post', `/api/v1/conversations/${id}/handoff`), 409, 'CONVERSATION_ENDED');
      expectError(await api('post', `/api/v1/conversations/${randomUUID()}/handoff`), 404, 'NOT_FOUND');
      expectError(await api('post', '/api/v1/conversations/not-a-uuid/handoff'), 404, 'NOT_FOUND');
      const other = await signUp(t);
      const foreign = (await recordConversation(t, other.tenantId, (await createBot(t, other.tenantId)).id)).id;
      expectError(await api('post', `/api/v1/conversations/${foreign}/handoff`), 404, 'NOT_FOUND');
      expectError(await api('post', `/api/v1/conversations/${id}/handoff`).send({ extra: 1 }), 400, 'VALIDATION_ERROR', [
        { field: 'extra', message: expect.any(String) },
      ]);
    });

    it('needs conversations:write: a key without it is 403 INSUFFICIENT_SCOPE, a viewer 403 INSUFFICIENT_ROLE, an agent may', async () => {
      const id = await conversation();
      const readOnly = (await createKey(t, tenantId, { scopes: ['conversations:read'] })).key;
      expectError(await t.http().post(`/api/v1/conversations/${id}/handoff`).set('X-API-Key', readOnly), 403, 'INSUFFICIENT_SCOPE');
      expectError(await asUser(t, viewer.cookie, tenantId).post(`/api/v1/conversations/${id}/handoff`).send({}), 403, 'INSUFFICIENT_ROLE');
      await asUser(t, agent.cookie, tenantId).post(`/api/v1/conversations/${id}/handoff`).send({}).expect(200);
    });
  });

  describe('POST /conversations/:id/messages (agent)', () => {
    it('hands an active conversation off first, stores an agent message with its author, and sends both events in order', async () => {
      const id = await conversation();
      const posted = await api('post', `/api/v1/conversations/${id}/messages`).send({ content: '  Hello, this is Sam.  ', authorName: ' Sam ' }).expect(201);
      expect(posted.body).toEqual({
        message: {
          id: expect.stringMatching(UUID),
          conversationId: id,
          role: 'agent',
          content: 'Hello, this is Sam.',
          authorName: 'Sam',
          createdAt: expect.stringMatching(ISO_MS),
        },
      });
      expect((await api('get', `/api/v1/conversations/${id}`).expect(200)).body.conversation).toMatchObject({ status: 'handed_off', messageCount: 3 });
      expect(await eventsOf(id)).toEqual(['conversation.started', 'message.created', 'message.created', 'conversation.handed_off', 'message.created']);
      const listed = (await api('get', `/api/v1/conversations/${id}/messages`).expect(200)).body.messages;
      expect(listed[2]).toEqual(posted.body.message);
    });

    it("signs a user's message with their name; a key's message has no author", async () => {
      const id = await conversation();
      const byUser = await asUser(t, owner.cookie, tenantId).post(`/api/v1/conversations/${id}/messages`).send({ content: 'Hi' }).expect(201);
      expect(byUser.body.message.authorName).toBe('Olivia Owner');
      const byKey = await api('post', `/api/v1/conversations/${id}/messages`).send({ content: 'Hi again' }).expect(201);
      expect(byKey.body.message).not.toHaveProperty('authorName');
    });

    it('validates the body and refuses an ended conversation (409)', async () => {
      const id = await conversation();
      expectError(await api('post', `/api/v1/conversations/${id}/messages`).send({ content: '   ' }), 400, 'VALIDATION_ERROR', [
        { field: 'content', message: 'must be 1 to 4000 characters' },
      ]);
      expectError(await api('post', `/api/v1/conversations/${id}/messages`).send({ content: 'x'.repeat(4001) }), 400, 'VALIDATION_ERROR', [
        { field: 'content', message: 'must be 1 to 4000 characters' },
      ]);
      expectError(await api('post', `/api/v1/conversations/${id}/messages`).send({ content: 'ok', authorName: 'x'.repeat(101) }), 400, 'VALIDATION_ERROR', [
        { field: 'authorName', message: 'must be 1 to 100 characters' },
      ]);
      await api('post', `/api/v1/conversations/${id}/end`).expect(200);
      expectError(await api('post', `/api/v1/conversations/${id}/messages`).send({ content: 'too late' }), 409, 'CONVERSATION_ENDED');
      expectError(await api('post', `/api/v1/conversations/${randomUUID()}/messages`).send({ content: 'nobody' }), 404, 'NOT_FOUND');
    });

    it('honours Idempotency-Key: a retry stores nothing and replays the first answer; another body is 409', async () => {
      const id = await conversation();
      const idempotencyKey = randomUUID();
      const first = await api('post', `/api/v1/conversations/${id}/messages`).set('Idempotency-Key', idempotencyKey).send({ content: 'Once' }).expect(201);
      const retry = await api('post', `/api/v1/conversations/${id}/messages`).set('Idempotency-Key', idempotencyKey).send({ content: 'Once' }).expect(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await t.prisma.message.count({ where: { conversationId: id, role: 'agent' } })).toBe(1);
      expectError(
        await api('post', `/api/v1/conversations/${id}/messages`).set('Idempotency-Key', idempotencyKey).send({ content: 'Twice' }),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
    });

    it('writes the handoff, the message and their events in one transaction: a failure rolls all of them back', async () => {
      const id = await conversation();
      const before = await eventsOf(id);
      // A trigger of the test's own makes the message's insert fail after the handoff was written.
      await t.prisma.$executeRawUnsafe(
        `CREATE OR REPLACE FUNCTION handoff_test_refuse() RETURNS trigger AS $$ BEGIN IF NEW.content = 'refuse me' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await t.prisma.$executeRawUnsafe(`CREATE TRIGGER handoff_test_refuse BEFORE INSERT ON "Message" FOR EACH ROW EXECUTE FUNCTION handoff_test_refuse()`);
      try {
        expect((await api('post', `/api/v1/conversations/${id}/messages`).send({ content: 'refuse me' })).status).toBe(500);
      } finally {
        await t.prisma.$executeRawUnsafe('DROP TRIGGER handoff_test_refuse ON "Message"');
        await t.prisma.$executeRawUnsafe('DROP FUNCTION handoff_test_refuse()');
      }
      expect((await api('get', `/api/v1/conversations/${id}`).expect(200)).body.conversation).toMatchObject({ status: 'active', handedOffAt: null });
      expect(await eventsOf(id)).toEqual(before);
      expect(await t.prisma.message.count({ where: { conversationId: id, role: 'agent' } })).toBe(0);
    });
  });

  describe('POST /conversations/:id/release and /end', () => {
    it('releases to the bot (the assignee and the wait clear, conversation.released), again unchanged; ended is 409', async () => {
      const id = await conversation();
      await asUser(t, agent.cookie, tenantId).put(`/api/v1/conversations/${id}/assignee`).send({ userId: agent.id }).expect(200);
      await api('post', `/api/v1/conversations/${id}/handoff`).expect(200);
      const released = await api('post', `/api/v1/conversations/${id}/release`).send({}).expect(200);
      expect(released.body.conversation).toMatchObject({ status: 'active', assigneeId: null, waitingSince: null, handedOffAt: expect.stringMatching(ISO_MS) });
      expect((await api('post', `/api/v1/conversations/${id}/release`).expect(200)).body.conversation).toEqual(released.body.conversation);
      expect((await eventsOf(id)).filter((type) => type === 'conversation.released')).toHaveLength(1);
      await api('post', `/api/v1/conversations/${id}/end`).expect(200);
      expectError(await api('post', `/api/v1/conversations/${id}/release`), 409, 'CONVERSATION_ENDED');
    });

    it('ends (200, conversation.ended once), again unchanged', async () => {
      const id = await conversation();
      const ended = await api('post', `/api/v1/conversations/${id}/end`).expect(200);
      expect(ended.body.conversation).toMatchObject({ status: 'ended', endedAt: expect.stringMatching(ISO_MS) });
      expect((await api('post', `/api/v1/conversations/${id}/end`).expect(200)).body.conversation).toEqual(ended.body.conversation);
      expect((await eventsOf(id)).filter((type) => type === 'conversation.ended')).toHaveLength(1);
      expectError(await api('post', `/api/v1/conversations/${randomUUID()}/end`), 404, 'NOT_FOUND');
    });
  });

  describe('PUT /conversations/:id/assignee (users only)', () => {
    const assign = (user: TestUser, id: string, body: object) => asUser(t, user.cookie, tenantId).put(`/api/v1/conversations/${id}/assignee`).send(body);

    it('assigns a member who may answer (conversation.assigned, audited); the holder may hand it on or drop it', async () => {
      const id = await conversation();
      const taken = await assign(agent, id, { userId: agent.id }).expect(200);
      expect(taken.body.conversation.assigneeId).toBe(agent.id);
      expect((await assign(agent, id, { userId: agent.id }).expect(200)).body.conversation).toEqual(taken.body.conversation);
      expect((await assign(agent, id, { userId: otherAgent.id }).expect(200)).body.conversation.assigneeId).toBe(otherAgent.id);
      expect((await assign(otherAgent, id, { userId: null }).expect(200)).body.conversation.assigneeId).toBeNull();
      expect((await eventsOf(id)).filter((type) => type === 'conversation.assigned')).toHaveLength(3);
      const audit = await t.prisma.auditEvent.findMany({ where: { tenantId, action: 'conversation.assigned', targetId: id }, orderBy: { id: 'asc' } });
      expect(audit.map((row) => row.actor)).toEqual([`user:${agent.id}`, `user:${agent.id}`, `user:${otherAgent.id}`]);
    });

    it("answers 409 ALREADY_ASSIGNED to taking another user's conversation, unless force", async () => {
      const id = await conversation();
      await assign(agent, id, { userId: agent.id }).expect(200);
      expectError(await assign(otherAgent, id, { userId: otherAgent.id }), 409, 'ALREADY_ASSIGNED');
      expectError(await assign(otherAgent, id, { userId: null }), 409, 'ALREADY_ASSIGNED');
      expect((await assign(otherAgent, id, { userId: otherAgent.id, force: true }).expect(200)).body.conversation.assigneeId).toBe(otherAgent.id);
    });

    it('gives exactly one of two agents claiming at once the conversation: one 200, one 409', async () => {
      for (let round = 0; round < 3; round++) {
        const id = await conversation();
        const answers = await Promise.all([assign(agent, id, { userId: agent.id }), assign(otherAgent, id, { userId: otherAgent.id })]);
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
        const winner = answers.find((answer) => answer.status === 200)!.body.conversation.assigneeId;
        expect((await api('get', `/api/v1/conversations/${id}`).expect(200)).body.conversation.assigneeId).toBe(winner);
      }
    });

    it('refuses a user who may not answer conversations or is no member (400), keys (403) and viewers (403)', async () => {
      const id = await conversation();
      expectError(await assign(owner, id, { userId: viewer.id }), 400, 'VALIDATION_ERROR', [{ field: 'userId', message: expect.any(String) }]);
      expectError(await assign(owner, id, { userId: randomUUID() }), 400, 'VALIDATION_ERROR', [{ field: 'userId', message: expect.any(String) }]);
      expectError(await assign(owner, id, {}), 400, 'VALIDATION_ERROR', [{ field: 'userId', message: 'must be a UUID or null' }]);
      expectError(await api('put', `/api/v1/conversations/${id}/assignee`).send({ userId: null }), 403, 'INSUFFICIENT_SCOPE');
      expectError(await assign(viewer, id, { userId: null }), 403, 'INSUFFICIENT_ROLE');
      expectError(await assign(owner, randomUUID(), { userId: null }), 404, 'NOT_FOUND');
    });
  });

  describe('the widget while a person has the conversation', () => {
    it('stores the visitor message with reply null, no assistant message, no quota; the agent answers without quota', async () => {
      const visitor = await widgetVisitor();
      await api('post', `/api/v1/conversations/${visitor.id}/handoff`).expect(200);
      const before = { usage: await usage(), assistant: await t.prisma.message.count({ where: { conversationId: visitor.id, role: 'assistant' } }) };
      const sent = await visitor.widget('post', '/messages').send({ content: 'How much is Pro?' }).expect(201);
      expect(sent.body).toEqual({ message: expect.objectContaining({ role: 'user', content: 'How much is Pro?' }), reply: null });
      const streamed = await visitor.widget('post', '/messages').set('Accept', 'text/event-stream').send({ content: 'Hello?' }).expect(201);
      expect(streamed.text).toMatch(/^event: done\ndata: .*"reply":null/);
      expect(await t.prisma.message.count({ where: { conversationId: visitor.id, role: 'assistant' } })).toBe(before.assistant);
      const waiting = (await api('get', `/api/v1/conversations/${visitor.id}`).expect(200)).body.conversation;
      expect(waiting.waitingSince).toBe(sent.body.message.createdAt);
      await api('post', `/api/v1/conversations/${visitor.id}/messages`).send({ content: 'It is 49 EUR.', authorName: 'Sam' }).expect(201);
      expect((await api('get', `/api/v1/conversations/${visitor.id}`).expect(200)).body.conversation.waitingSince).toBeNull();
      expect(await usage()).toBe(before.usage);
      const polled = (await visitor.widget('get', `/messages?after=${sent.body.message.id}`).expect(200)).body.messages;
      expect(polled.map((message: { role: string }) => message.role)).toEqual(['user', 'agent']);
      expect(polled[1]).toMatchObject({ content: 'It is 49 EUR.', authorName: 'Sam' });
      // Released: the bot answers again, and counts.
      await api('post', `/api/v1/conversations/${visitor.id}/release`).expect(200);
      expect((await visitor.widget('post', '/messages').send({ content: 'How much is Pro?' }).expect(201)).body.reply).toMatchObject({ role: 'assistant' });
      expect(await usage()).toBe(before.usage + 1);
    });

    it('lets the visitor ask for a person only when the bot allows it (409 HANDOFF_DISABLED), and shows the setting', async () => {
      const visitor = await widgetVisitor();
      expectError(await visitor.widget('post', '/handoff').send({}), 409, 'HANDOFF_DISABLED');
      const settings = await api('get', `/api/v1/bots/${botId}/settings`).expect(200);
      expect(settings.body.settings.handoff).toEqual({ enabled: false, onFallback: false, message: expect.any(String) });
      expectError(
        await t
          .http()
          .patch(`/api/v1/bots/${botId}/settings`)
          .set('X-API-Key', key)
          .send({ handoff: { enabled: 'yes' } }),
        400,
        'VALIDATION_ERROR',
        [{ field: 'handoff.enabled', message: 'must be true or false' }],
      );
      await t
        .http()
        .patch(`/api/v1/bots/${botId}/settings`)
        .set('X-API-Key', key)
        .send({ handoff: { enabled: true, message: 'Hang on, a human is coming.' } })
        .expect(200);
      try {
        expect((await t.http().get(`/api/v1/widget/bots/${botId}`).set('X-API-Key', publicKey).expect(200)).body.bot.handoff).toEqual({
          enabled: true,
          message: 'Hang on, a human is coming.',
        });
        const handedOff = await visitor.widget('post', '/handoff').send({}).expect(200);
        expect(handedOff.body.conversation).toMatchObject({ id: visitor.id, status: 'handed_off', waitingSince: expect.stringMatching(ISO_MS) });
        expect(await eventsOf(visitor.id)).toContain('conversation.handed_off');
      } finally {
        await t
          .http()
          .patch(`/api/v1/bots/${botId}/settings`)
          .set('X-API-Key', key)
          .send({ handoff: { enabled: false } })
          .expect(200);
      }
    });

    it('with onFallback, hands an unanswered question off after the fallback message', async () => {
      const bot = (await createBot(t, tenantId)).id;
      await t
        .http()
        .patch(`/api/v1/bots/${bot}/settings`)
        .set('X-API-Key', key)
        .send({ handoff: { enabled: true, onFallback: true } })
        .expect(200);
      const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId: bot }).expect(201)).body.visitorToken;
      const id = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', publicKey).set('X-Visitor-Token', token).send({}).expect(201)).body
        .conversation.id;
      const sent = await t
        .http()
        .post(`/api/v1/widget/conversations/${id}/messages`)
        .set('X-API-Key', publicKey)
        .set('X-Visitor-Token', token)
        .send({ content: 'Do you sell hamster telescopes?' })
        .expect(201);
      expect(sent.body.reply).toMatchObject({ role: 'assistant' });
      const handedOff = (await api('get', `/api/v1/conversations/${id}`).expect(200)).body.conversation;
      expect(handedOff).toMatchObject({ status: 'handed_off', waitingSince: sent.body.message.createdAt, handedOffAt: sent.body.reply.createdAt });
      expect((await eventsOf(id)).slice(-3)).toEqual(['message.created', 'message.created', 'conversation.handed_off']);
    });
  });

  it('lists by status with waiting conversations first when sort=waiting', async () => {
    const quiet = await conversation();
    await api('post', `/api/v1/conversations/${quiet}/handoff`).expect(200);
    const waiting = await widgetVisitor();
    await api('post', `/api/v1/conversations/${waiting.id}/handoff`).expect(200);
    await waiting.widget('post', '/messages').send({ content: 'Anyone there?' }).expect(201);
    const newest = (await api('get', '/api/v1/conversations?status=handed_off').expect(200)).body.conversations;
    expect(newest.every((c: { status: string }) => c.status === 'handed_off')).toBe(true);
    const queue = (await api('get', '/api/v1/conversations?status=handed_off&sort=waiting&limit=100').expect(200)).body.conversations as {
      id: string;
      waitingSince: string | null;
    }[];
    const firstIdle = queue.findIndex((c) => c.waitingSince === null);
    expect(queue.slice(firstIdle).every((c) => c.waitingSince === null)).toBe(true);
    expect(queue.findIndex((c) => c.id === waiting.id)).toBeLessThan(queue.findIndex((c) => c.id === quiet));
    expectError(await api('get', '/api/v1/conversations?sort=oldest'), 400, 'VALIDATION_ERROR', [{ field: 'sort', message: 'must be one of newest, waiting' }]);
  });
});
