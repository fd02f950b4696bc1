import { Scope } from '../../src/common/access/scopes';
import { MAX_STREAMS_PER_CALLER } from '../../src/conversations/live/tenant-event-stream';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { EphemeralRedis, hasRedisServer } from '../support/ephemeral-redis';
import { createBot, createKey, createTenant } from '../support/factories';
import { listen, openStream, type Stream } from '../support/sse-client';
import { asUser, ORIGIN, signUp, type TestUser } from '../support/users';

/** The inbox's live stream: GET /api/v1/conversations/:id/events, for the tenant's people and keys. */
describe('Human handoff, live: the tenant stream (inbox)', () => {
  let t: TestApp;
  let port: number;
  let owner: TestUser;
  let publicKey: string;
  let botId: string;

  beforeAll(async () => {
    // TRUST_PROXY: the per-key test spreads its streams over addresses (X-Forwarded-For from loopback),
    // so that the limit per client address (10) is not the one reached.
    t = await createTestApp({ TRUST_PROXY: 'loopback' });
    port = await listen(t);
    owner = await signUp(t);
    // Keys are a Pro feature; the widget needs a public key.
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
    publicKey = (await createKey(t, owner.tenantId, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, owner.tenantId)).id;
  });
  afterAll(() => t.close());

  const api = () => asUser(t, owner.cookie, owner.tenantId);
  const ownerHeaders = () => ({ Cookie: owner.cookie, Origin: ORIGIN, 'X-Tenant-Id': owner.tenantId });
  const path = (id: string) => `/api/v1/conversations/${id}/events`;

  const visitorOn = async () => {
    const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId }).expect(201)).body.visitorToken as string;
    const headers = { 'X-API-Key': publicKey, 'X-Visitor-Token': token };
    const id = (await t.http().post('/api/v1/widget/conversations').set(headers).send({}).expect(201)).body.conversation.id as string;
    const says = async (content: string) =>
      (await t.http().post(`/api/v1/widget/conversations/${id}/messages`).set(headers).send({ content }).expect(201)).body as {
        message: { id: string };
        reply: { id: string } | null;
      };
    return { id, says, headers };
  };

  const closing = async (stream: Stream, work: () => Promise<void>) => {
    try {
      await work();
    } finally {
      stream.close();
    }
  };

  it("delivers the visitor's messages, the wait, the assignee, agent replies and the end, live, to a signed-in owner", async () => {
    const visitor = await visitorOn();
    await api().post(`/api/v1/conversations/${visitor.id}/handoff`).expect(200);
    const stream = await openStream(port, path(visitor.id), ownerHeaders());
    await closing(stream, async () => {
      expect(stream.status).toBe(200);
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ id: visitor.id, status: 'handed_off', waitingSince: null });

      const sent = await visitor.says('Is anyone there?');
      expect(sent.reply).toBeNull();
      const live = await stream.next((e) => e.event === 'message');
      expect(live).toMatchObject({ id: sent.message.id, data: { id: sent.message.id, role: 'user', content: 'Is anyone there?' } });
      expect((await stream.next((e) => e.event === 'conversation')).data.waitingSince).toEqual(expect.any(String));

      await api().put(`/api/v1/conversations/${visitor.id}/assignee`).send({ userId: owner.id }).expect(200);
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ assigneeId: owner.id });

      const reply = (await api().post(`/api/v1/conversations/${visitor.id}/messages`).send({ content: 'Yes, I am here.' }).expect(201)).body.message;
      expect(await stream.next((e) => e.event === 'message')).toEqual({ event: 'message', id: reply.id, data: reply });
      expect(reply).toMatchObject({ role: 'agent', authorName: 'Test User' });
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ waitingSince: null });

      await api().post(`/api/v1/conversations/${visitor.id}/end`).expect(200);
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ status: 'ended' });
    });
  });

  it("delivers the visitor's question and the bot's reply while the bot has the conversation", async () => {
    const visitor = await visitorOn();
    const stream = await openStream(port, path(visitor.id), ownerHeaders());
    await closing(stream, async () => {
      await stream.next((e) => e.event === 'conversation');
      const sent = await visitor.says('What are your opening hours?');
      expect((await stream.next((e) => e.event === 'message')).data).toMatchObject({ id: sent.message.id, role: 'user' });
      expect((await stream.next((e) => e.event === 'message')).data).toMatchObject({ id: sent.reply!.id, role: 'assistant' });
    });
  });

  it('resumes after Last-Event-ID with every message missed meanwhile, the visitor’s included (a key with conversations:read)', async () => {
    const reader = (await createKey(t, owner.tenantId, { scopes: [Scope.ConversationsRead] })).key;
    const visitor = await visitorOn();
    await api().post(`/api/v1/conversations/${visitor.id}/handoff`).expect(200);
    const first = (await api().post(`/api/v1/conversations/${visitor.id}/messages`).send({ content: 'First' }).expect(201)).body.message;
    const question = await visitor.says('Missed question');
    const answer = (await api().post(`/api/v1/conversations/${visitor.id}/messages`).send({ content: 'Missed answer' }).expect(201)).body.message;
    const stream = await openStream(port, path(visitor.id), { 'X-API-Key': reader, 'Last-Event-ID': first.id });
    await closing(stream, async () => {
      expect(stream.status).toBe(200);
      expect((await stream.next((e) => e.event === 'message')).id).toBe(question.message.id);
      expect(await stream.next((e) => e.event === 'message')).toEqual({ event: 'message', id: answer.id, data: answer });
    });
  });

  it(`allows ${MAX_STREAMS_PER_CALLER} open streams per key (429 beyond), counted apart from a user's`, async () => {
    const key = (await createKey(t, owner.tenantId, { scopes: [Scope.ConversationsRead] })).key;
    const visitor = await visitorOn();
    const streams: Stream[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS_PER_CALLER; i++)
        streams.push(await openStream(port, path(visitor.id), { 'X-API-Key': key, 'X-Forwarded-For': `198.51.100.${i % 2}` }));
      expect(streams.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_CALLER).fill(200));
      const refused = await t.http().get(path(visitor.id)).set('X-API-Key', key).set('X-Forwarded-For', '198.51.100.2');
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.error.message).toBe(`At most ${MAX_STREAMS_PER_CALLER} live streams per API key may be open at once.`);
      const mine = await openStream(port, path(visitor.id), { ...ownerHeaders(), 'X-Forwarded-For': '198.51.100.2' });
      expect(mine.status).toBe(200);
      mine.close();
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("answers 404 for another tenant's conversation, to its people and its keys, and 403 to a key without conversations:read", async () => {
    const visitor = await visitorOn();
    const stranger = await signUp(t);
    expectError(await asUser(t, stranger.cookie, stranger.tenantId).get(path(visitor.id)), 404, 'NOT_FOUND');
    const other = await createTenant(t);
    expectError(await t.http().get(path(visitor.id)).set('X-API-Key', other.key), 404, 'NOT_FOUND');
    const blind = (await createKey(t, owner.tenantId, { scopes: [Scope.LeadsRead] })).key;
    expectError(await t.http().get(path(visitor.id)).set('X-API-Key', blind), 403, 'INSUFFICIENT_SCOPE');
  });

  // Closing an instance closes the database connection it shares with `t`: these two come last.
  (hasRedisServer() ? it.skip : it)('ends open streams when the instance shuts down', async () => {
    const second = await createTestApp({}, { connection: t.connection });
    const secondPort = await listen(second);
    const visitor = await visitorOn();
    const stream = await openStream(secondPort, path(visitor.id), ownerHeaders());
    await stream.next((e) => e.event === 'conversation');
    await second.close();
    await stream.ended;
  });

  (hasRedisServer() ? it : it.skip)(
    "delivers a visitor's message sent to instance A to an owner's stream on instance B (Redis pub/sub), and ends B's streams when B shuts down",
    async () => {
      const redis = await EphemeralRedis.create();
      const one = await createTestApp({ REDIS_URL: redis.url }, { connection: t.connection });
      const two = await createTestApp({ REDIS_URL: redis.url }, { connection: t.connection });
      try {
        const visitor = await visitorOn();
        await api().post(`/api/v1/conversations/${visitor.id}/handoff`).expect(200);
        const stream = await openStream(await listen(two), path(visitor.id), ownerHeaders());
        await closing(stream, async () => {
          await stream.next((e) => e.event === 'conversation');
          const sent = (
            await one.http().post(`/api/v1/widget/conversations/${visitor.id}/messages`).set(visitor.headers).send({ content: 'Across' }).expect(201)
          ).body.message;
          expect((await stream.next((e) => e.event === 'message')).data).toEqual(sent);
          // And B's streams end when B shuts down.
          await two.close();
          await stream.ended;
        });
      } finally {
        await two.close().catch(() => undefined);
        await one.close().catch(() => undefined);
        await redis.stop();
      }
    },
  );
});
