import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Scope } from '../../src/common/access/scopes';
import { MAX_STREAMS_PER_CLIENT_IP, MAX_STREAMS_PER_CONVERSATION } from '../../src/conversations/live/conversation-event-streams';
import { DEFAULT_LIVE_STREAM_OPTIONS } from '../../src/conversations/live/live-stream-options';
import { expectError } from '../support/assertions';
import { sleep } from '../support/child-server';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { RawConnection } from '../support/raw-connection';
import { firstEvent, listen, openStream, type Stream } from '../support/sse-client';

/**
 * The live streams (the inbox's and the widget's) cannot be turned against the instance: a reader
 * that never reads is cut off once 256 KB wait for it, a stream lives at most its lifetime, and open
 * streams are capped per conversation and per client address (API_DECISIONS part 4, "Live streams").
 */
describe('Live streams: bounded whatever their readers do', () => {
  let t: TestApp;
  let port: number;
  let tenant: TestTenant;
  let publicKey: string;
  let botId: string;
  /** The server's end of every connection, by the client's port: what the process holds for each. */
  const serverSockets = new Map<number, Socket>();

  beforeAll(async () => {
    // TRUST_PROXY: each stream comes from the address its test gives it (X-Forwarded-For from loopback).
    t = await createTestApp({ TRUST_PROXY: 'loopback' });
    port = await listen(t);
    (t.app.getHttpServer() as Server).on('connection', (socket: Socket) => serverSockets.set(socket.remotePort!, socket));
    tenant = await createTenant(t, { plan: 'pro' });
    publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenant.id)).id;
  });
  afterAll(() => t.close());

  const eventsPath = (id: string) => `/api/v1/conversations/${id}/events`;
  const widgetEventsPath = (id: string) => `/api/v1/widget/conversations/${id}/events`;
  const readerKey = async () => (await createKey(t, tenant.id, { scopes: [Scope.ConversationsRead] })).key;

  const visitorOn = async (app: TestApp) => {
    const token = (await app.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId }).expect(201)).body.visitorToken as string;
    const headers = { 'X-API-Key': publicKey, 'X-Visitor-Token': token };
    const id = (await app.http().post('/api/v1/widget/conversations').set(headers).send({}).expect(201)).body.conversation.id as string;
    return { id, headers };
  };
  const agentSays = async (app: TestApp, id: string, content: string): Promise<string> =>
    (await app.http().post(`/api/v1/conversations/${id}/messages`).set('X-API-Key', tenant.key).send({ content }).expect(201)).body.message.id;

  /** The bytes the process holds for its connections' readers (unsent, in its sockets' queues). */
  const bufferedBytes = () => [...serverSockets.values()].reduce((sum, socket) => sum + (socket.destroyed ? 0 : socket.writableLength), 0);

  /** A stream whose reader takes the first event, then never reads again. */
  const unreadStream = async (conversationId: string, key: string, from: string): Promise<RawConnection> => {
    const connection = await RawConnection.open(port);
    connection.write(
      `GET ${eventsPath(conversationId)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nX-API-Key: ${key}\r\nX-Forwarded-For: ${from}\r\n\r\n`,
    );
    await connection.waitFor(/^HTTP\/1\.1 200[^]*event: conversation\n/, 10_000);
    connection.pause();
    return connection;
  };

  const waitUntil = async (condition: () => boolean, ms: number, what: string) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await sleep(10);
    }
  };

  const openWhenAdmitted = async (path: string, headers: Record<string, string>): Promise<Stream> => {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const stream = await openStream(port, path, headers);
      if (stream.status !== 429 || Date.now() > deadline) return stream;
      stream.close();
      await sleep(20);
    }
  };

  /** A stream request through supertest: a stream wrongly admitted answers with its first event instead of hanging. */
  const streamRequest = (path: string, headers: Record<string, string>) => t.http().get(path).set(headers).buffer(true).parse(firstEvent);

  const closeAll = async (streams: Stream[]) => {
    for (const stream of streams) stream.close();
    await Promise.all(streams.map((stream) => stream.ended));
  };

  it('cuts off 12 streams that are never read once 256 KB wait for each, holds no more than that for them, and keeps answering; they resume with Last-Event-ID', async () => {
    const { id } = await visitorOn(t);
    const keys = [await readerKey(), await readerKey()];
    const unread: RawConnection[] = [];
    try {
      for (let i = 0; i < 12; i++) unread.push(await unreadStream(id, keys[i % 2], `198.51.100.${i % 2}`));

      // The kernel's buffers take a few MB per loopback connection before the process holds
      // anything: messages go on until the service has cut every stream off, or holds more than the
      // streams' backlogs (and a little for the other requests' answers on their way out).
      const limit = unread.length * DEFAULT_LIVE_STREAM_OPTIONS.maxBacklogBytes + 64 * 1024;
      // 4,000 characters, each 4 bytes in UTF-8: the buffers fill in fewer messages.
      const content = '😀'.repeat(4_000);
      const posted: string[] = [];
      let mostBuffered = 0;
      const cutOff = () => unread.filter((connection) => serverSockets.get(connection.localPort)?.destroyed).length;
      while (cutOff() < unread.length && posted.length < 4_000 && mostBuffered <= limit) {
        posted.push(await agentSays(t, id, content));
        mostBuffered = Math.max(mostBuffered, bufferedBytes());
      }
      expect(mostBuffered).toBeLessThanOrEqual(limit);
      expect(cutOff()).toBe(unread.length);
      // Everyone else is still answered.
      await t.http().get('/health/live').expect(200);
      await t.http().get(`/api/v1/conversations/${id}`).set('X-API-Key', tenant.key).expect(200);

      // A reader that reads again takes what the kernel held, then sees the end; it resumes after
      // the last whole event it got and misses nothing.
      const reader = unread[0];
      reader.resume();
      await reader.waitForClose(30_000);
      const received = [...reader.received.matchAll(/id: ([0-9a-f-]{36})\nevent: message\ndata: .*\n\n/g)].map((match) => match[1]);
      expect(received.length).toBeGreaterThan(0);
      expect(received.length).toBeLessThan(posted.length);
      expect(received).toEqual(posted.slice(0, received.length));
      const resumed = await openStream(port, eventsPath(id), { 'X-API-Key': keys[0], 'X-Forwarded-For': '198.51.100.9', 'Last-Event-ID': received.at(-1)! });
      try {
        expect(resumed.status).toBe(200);
        expect((await resumed.next((e) => e.event === 'message')).id).toBe(posted[received.length]);
      } finally {
        resumed.close();
      }
    } finally {
      for (const connection of unread) connection.destroy();
    }
  });

  it(`allows ${MAX_STREAMS_PER_CONVERSATION} open streams per conversation, whoever holds them; the next gets 429 until one closes`, async () => {
    const { id } = await visitorOn(t);
    const keys = [await readerKey(), await readerKey(), await readerKey()];
    const streams: Stream[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS_PER_CONVERSATION; i++)
        streams.push(await openStream(port, eventsPath(id), { 'X-API-Key': keys[i % 2], 'X-Forwarded-For': `203.0.113.${i}` }));
      expect(streams.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_CONVERSATION).fill(200));

      const refused = await streamRequest(eventsPath(id), { 'X-API-Key': keys[2], 'X-Forwarded-For': '203.0.113.100' });
      expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(refused.body.error.message).toBe(`At most ${MAX_STREAMS_PER_CONVERSATION} live streams per conversation may be open at once.`);
      expect(refused.headers['retry-after']).toBe('5');

      // Another conversation is not affected.
      const other = await visitorOn(t);
      const elsewhere = await openStream(port, eventsPath(other.id), { 'X-API-Key': keys[2], 'X-Forwarded-For': '203.0.113.100' });
      expect(elsewhere.status).toBe(200);
      streams.push(elsewhere);

      streams[0].close();
      await streams[0].ended;
      // The server hears the close on one of its next turns: until then the place is still taken.
      const again = await openWhenAdmitted(eventsPath(id), { 'X-API-Key': keys[2], 'X-Forwarded-For': '203.0.113.101' });
      streams.push(again);
      expect(again.status).toBe(200);
    } finally {
      await closeAll(streams);
    }
  });

  it(`allows ${MAX_STREAMS_PER_CLIENT_IP} open streams per client address, widget and inbox streams together (IPv6: per /64); the next gets 429`, async () => {
    const key = await readerKey();
    const from = '192.0.2.77';
    const streams: Stream[] = [];
    try {
      // Visitors hold 2 streams each and a key 10: only the address's limit is reached here.
      for (let i = 0; i < MAX_STREAMS_PER_CLIENT_IP / 2; i++) {
        const visitor = await visitorOn(t);
        streams.push(await openStream(port, widgetEventsPath(visitor.id), { ...visitor.headers, 'X-Forwarded-For': from }));
        streams.push(await openStream(port, eventsPath(visitor.id), { 'X-API-Key': key, 'X-Forwarded-For': from }));
      }
      expect(streams.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_CLIENT_IP).fill(200));

      const visitor = await visitorOn(t);
      const widgetRefused = await streamRequest(widgetEventsPath(visitor.id), { ...visitor.headers, 'X-Forwarded-For': from });
      expectError(widgetRefused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(widgetRefused.body.error.message).toBe(`At most ${MAX_STREAMS_PER_CLIENT_IP} live streams per client address may be open at once.`);
      expect(widgetRefused.headers['retry-after']).toBe('5');
      const inboxRefused = await streamRequest(eventsPath(visitor.id), { 'X-API-Key': await readerKey(), 'X-Forwarded-For': from });
      expectError(inboxRefused, 429, 'RATE_LIMIT_EXCEEDED');

      // Another address is not affected.
      const elsewhere = await openStream(port, widgetEventsPath(visitor.id), { ...visitor.headers, 'X-Forwarded-For': '192.0.2.78' });
      streams.push(elsewhere);
      expect(elsewhere.status).toBe(200);
    } finally {
      await closeAll(streams);
    }

    // An IPv6 client counts by its /64: fresh addresses in it do not make fresh room.
    const v6: Stream[] = [];
    try {
      for (let i = 0; i < MAX_STREAMS_PER_CLIENT_IP; i++) {
        const visitor = await visitorOn(t);
        v6.push(await openStream(port, widgetEventsPath(visitor.id), { ...visitor.headers, 'X-Forwarded-For': `2001:db8:5:7::${(i + 1).toString(16)}` }));
      }
      expect(v6.map((s) => s.status)).toEqual(Array(MAX_STREAMS_PER_CLIENT_IP).fill(200));
      const visitor = await visitorOn(t);
      expectError(
        await streamRequest(widgetEventsPath(visitor.id), { ...visitor.headers, 'X-Forwarded-For': '2001:db8:5:7:abcd::2' }),
        429,
        'RATE_LIMIT_EXCEEDED',
      );
    } finally {
      await closeAll(v6);
    }
  });

  // Closing an instance closes the database connection it shares with `t`: this one comes last.
  it('ends a stream after its lifetime; it resumes with Last-Event-ID and misses nothing', async () => {
    const lifetimeMs = 1_500;
    const second = await createTestApp({ TRUST_PROXY: 'loopback' }, { connection: t.connection, liveStreams: { maxLifetimeMs: lifetimeMs } });
    try {
      const secondPort = await listen(second);
      const visitor = await visitorOn(second);
      const opened = Date.now();
      const stream = await openStream(secondPort, widgetEventsPath(visitor.id), visitor.headers);
      const before = await agentSays(second, visitor.id, 'Before the end');
      expect((await stream.next((e) => e.event === 'message')).id).toBe(before);

      let ended = false;
      void stream.ended.then(() => (ended = true));
      await waitUntil(() => ended, 15_000, 'the stream ended by the service');
      expect(Date.now() - opened).toBeGreaterThanOrEqual(lifetimeMs - 100);

      const meanwhile = await agentSays(second, visitor.id, 'While you were away');
      const resumed = await openStream(secondPort, widgetEventsPath(visitor.id), { ...visitor.headers, 'Last-Event-ID': before });
      try {
        expect(resumed.status).toBe(200);
        expect((await resumed.next((e) => e.event === 'message')).id).toBe(meanwhile);
      } finally {
        resumed.close();
      }
    } finally {
      await second.close();
    }
  });
});
