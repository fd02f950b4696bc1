import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { EphemeralRedis, hasRedisServer } from '../support/ephemeral-redis';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { listen, openStream } from '../support/sse-client';

describe('Human handoff, live: the visitor stream', () => {
  let a: TestApp;
  let portA: number;
  let tenant: TestTenant;
  let publicKey: string;
  let botId: string;

  beforeAll(async () => {
    a = await createTestApp();
    portA = await listen(a);
    tenant = await createTenant(a);
    publicKey = (await createKey(a, tenant.id, { type: 'public', scopes: [] })).key;
    botId = (await createBot(a, tenant.id)).id;
  });
  afterAll(() => a.close());

  const visitorOn = async (t: TestApp) => {
    const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId }).expect(201)).body.visitorToken as string;
    const id = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', publicKey).set('X-Visitor-Token', token).send({}).expect(201)).body
      .conversation.id as string;
    return { id, token, headers: { 'X-API-Key': publicKey, 'X-Visitor-Token': token } };
  };
  const agentSays = (t: TestApp, id: string, content: string) =>
    t.http().post(`/api/v1/conversations/${id}/messages`).set('X-API-Key', tenant.key).send({ content, authorName: 'Sam' }).expect(201);

  it('streams the state, then agent messages (id: the message id) and state changes as they happen', async () => {
    const visitor = await visitorOn(a);
    const stream = await openStream(portA, `/api/v1/widget/conversations/${visitor.id}/events`, visitor.headers);
    try {
      expect(stream.status).toBe(200);
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ id: visitor.id, status: 'active' });
      const posted = (await agentSays(a, visitor.id, 'Hello from a person')).body.message;
      const handedOff = await stream.next((e) => e.event === 'conversation');
      expect(handedOff.data).toMatchObject({ status: 'handed_off' });
      const message = await stream.next((e) => e.event === 'message');
      expect(message).toEqual({ event: 'message', id: posted.id, data: posted });
      expect(message.data).toMatchObject({ role: 'agent', authorName: 'Sam' });
      await a.http().post(`/api/v1/conversations/${visitor.id}/release`).set('X-API-Key', tenant.key).expect(200);
      expect((await stream.next((e) => e.event === 'conversation')).data).toMatchObject({ status: 'active' });
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID with the messages missed meanwhile', async () => {
    const visitor = await visitorOn(a);
    const first = (await agentSays(a, visitor.id, 'First')).body.message;
    const missed = (await agentSays(a, visitor.id, 'Missed')).body.message;
    const stream = await openStream(portA, `/api/v1/widget/conversations/${visitor.id}/events`, { ...visitor.headers, 'Last-Event-ID': first.id });
    try {
      expect(await stream.next((e) => e.event === 'message')).toEqual({ event: 'message', id: missed.id, data: missed });
    } finally {
      stream.close();
    }
  });

  it('allows two open streams per visitor (429 beyond) and refuses another visitor’s conversation (404)', async () => {
    const visitor = await visitorOn(a);
    const streams = [
      await openStream(portA, `/api/v1/widget/conversations/${visitor.id}/events`, visitor.headers),
      await openStream(portA, `/api/v1/widget/conversations/${visitor.id}/events`, visitor.headers),
    ];
    try {
      expect(streams.map((s) => s.status)).toEqual([200, 200]);
      expectError(await a.http().get(`/api/v1/widget/conversations/${visitor.id}/events`).set(visitor.headers), 429, 'RATE_LIMIT_EXCEEDED');
      streams[0].close();
      await streams[0].ended;
      // The server hears the close on its next turn.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const again = await openStream(portA, `/api/v1/widget/conversations/${visitor.id}/events`, visitor.headers);
      expect(again.status).toBe(200);
      again.close();
    } finally {
      for (const stream of streams) stream.close();
    }
    const other = await visitorOn(a);
    expectError(await a.http().get(`/api/v1/widget/conversations/${visitor.id}/events`).set(other.headers), 404, 'NOT_FOUND');
  });

  (hasRedisServer() ? describe : describe.skip)('two instances sharing a database, with Redis', () => {
    let redis: EphemeralRedis;
    let one: TestApp;
    let two: TestApp;
    let portTwo: number;

    beforeAll(async () => {
      redis = await EphemeralRedis.create();
      one = await createTestApp({ REDIS_URL: redis.url }, { connection: a.connection });
      two = await createTestApp({ REDIS_URL: redis.url }, { connection: a.connection });
      portTwo = await listen(two);
    });
    afterAll(async () => {
      await one?.close();
      await two?.close().catch(() => undefined);
      await redis?.stop();
    });

    it('delivers an agent message posted on instance A to a stream on instance B within a second; with Redis down, polling B still finds it', async () => {
      const visitor = await visitorOn(one);
      const stream = await openStream(portTwo, `/api/v1/widget/conversations/${visitor.id}/events`, visitor.headers);
      try {
        await stream.next((e) => e.event === 'conversation');
        const posted = (await agentSays(one, visitor.id, 'Across instances')).body.message;
        expect(await stream.next((e) => e.event === 'message', 1_000)).toEqual({ event: 'message', id: posted.id, data: posted });
      } finally {
        stream.close();
      }

      await redis.stop();
      const last = (await agentSays(one, visitor.id, 'Redis is down')).body.message;
      const polled = (await two.http().get(`/api/v1/widget/conversations/${visitor.id}/messages`).set(visitor.headers).expect(200)).body.messages;
      expect(polled.at(-1)).toEqual(last);
      await redis.start();
    });

    it('ends open streams when the instance shuts down, so the drain finishes', async () => {
      const visitor = await visitorOn(two);
      const stream = await openStream(portTwo, `/api/v1/widget/conversations/${visitor.id}/events`, visitor.headers);
      await stream.next((e) => e.event === 'conversation');
      await two.close();
      await stream.ended;
    });
  });
});
