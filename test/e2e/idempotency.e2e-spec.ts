import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';
import { expectMatchesContract } from '../support/openapi-contract';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('Idempotent creates: POST /api/v1/leads with Idempotency-Key', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let bot: { id: string };
  let foreignBot: { id: string };

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    other = await createTenant(t, { plan: 'enterprise' });
    bot = await createBot(t, tenant.id);
    foreignBot = await createBot(t, other.id);
  });
  afterAll(() => t.close());

  const newKey = () => `order-${randomUUID()}`;
  const lead = (overrides: Record<string, unknown> = {}) => ({ name: 'Grace Hopper', email: `grace-${randomUUID().slice(0, 8)}@navy.example`, ...overrides });
  const post = (idempotencyKey: string | string[] | undefined, apiKey = tenant.key) => {
    const test = t.http().post('/api/v1/leads').set('X-API-Key', apiKey);
    return idempotencyKey === undefined ? test : test.set({ 'Idempotency-Key': idempotencyKey });
  };
  const leadCount = async (apiKey = tenant.key): Promise<number> => {
    const response = await t.http().get('/api/v1/leads?limit=1').set('X-API-Key', apiKey).expect(200);
    return response.body.pagination.total;
  };
  const record = (key: string, tenantId = tenant.id) => t.prisma.idempotencyRecord.findUnique({ where: { tenantId_key: { tenantId, key } } });
  const envelope = (response: Response, code: string, status: number) => ({
    error: { code, message: expect.stringMatching(/\S/), status, requestId: response.headers['x-request-id'] },
  });
  const expectCreated = (response: Response) => {
    expect({ status: response.status, replayed: response.headers['idempotent-replayed'] }).toEqual({ status: 201, replayed: undefined });
    expect(response.headers.location).toBe(`/api/v1/leads/${response.body.lead.id}`);
    return response.body.lead as { id: string } & Record<string, unknown>;
  };
  const expectReplayOf = (replay: Response, first: Response) => {
    expect({ status: replay.status, replayed: replay.headers['idempotent-replayed'], location: replay.headers.location, text: replay.text }).toEqual({
      status: 201,
      replayed: 'true',
      location: first.headers.location,
      text: first.text,
    });
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
  };

  describe('replays', () => {
    it('answers a retry with the first answer: same status, body bytes and Location, Idempotent-Replayed: true, and no second lead', async () => {
      const key = newKey();
      const body = lead({ company: 'Navy', tags: ['cobol'], botId: bot.id });
      const before = await leadCount();
      const first = await post(key).send(body);
      const created = expectCreated(first);
      expect(await leadCount()).toBe(before + 1);

      const replay = await post(key).send(body);
      expectReplayOf(replay, first);
      expect(replay.body.lead.id).toBe(created.id);
      expectMatchesContract(replay, 'POST', '/api/v1/leads');
      expect(await leadCount()).toBe(before + 1);

      const again = await post(key).send(body);
      expectReplayOf(again, first);
      expect(await leadCount()).toBe(before + 1);
      expect((await t.http().get(`/api/v1/leads/${created.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead).toEqual(created);
    });

    it('stores the answer with the lead, kept for 24 hours', async () => {
      const key = newKey();
      const first = await post(key).send(lead());
      const created = expectCreated(first);
      const stored = await record(key);
      expect(stored).toEqual({
        tenantId: tenant.id,
        key,
        requestHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        status: 201,
        responseBody: JSON.parse(first.text),
        location: `/api/v1/leads/${created.id}`,
        createdAt: expect.any(Date),
        expiresAt: expect.any(Date),
        erasedAt: null,
      });
      expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBe(DAY_MS);
      expect(Math.abs(stored!.createdAt.getTime() - Date.parse(created.createdAt as string))).toBeLessThan(5_000);
    });

    it('compares the request after validation and trimming: whitespace and field order do not make it different', async () => {
      const key = newKey();
      const first = await post(key).send({ name: 'Ada Lovelace', email: 'ada@analytical.example', tags: ['uk', 'vip'] });
      expectCreated(first);
      const before = await leadCount();
      const replay = await post(key).send({ tags: [' uk', 'vip '], email: ' ada@analytical.example ', name: '\tAda Lovelace  ' });
      expectReplayOf(replay, first);
      expect(await leadCount()).toBe(before);
    });

    it('is scoped to the tenant, not to the API key: another key of the same tenant gets the replay', async () => {
      const secondKey = await createKey(t, tenant.id, { scopes: ['leads:read', 'leads:write'] });
      const key = newKey();
      const body = lead();
      const first = await post(key).send(body);
      expectCreated(first);
      expectReplayOf(await post(key, secondKey.key).send(body), first);
    });

    it("keeps tenants apart: another tenant's identical key and body create that tenant's own lead", async () => {
      const key = newKey();
      const body = lead();
      const [mineBefore, theirsBefore] = [await leadCount(), await leadCount(other.key)];
      const mine = expectCreated(await post(key).send(body));
      const theirs = expectCreated(await post(key, other.key).send(body));
      expect(theirs.id).not.toBe(mine.id);
      expect([await leadCount(), await leadCount(other.key)]).toEqual([mineBefore + 1, theirsBefore + 1]);
      expect((await post(key, other.key).send(body)).body.lead.id).toBe(theirs.id);
      expect((await post(key).send(body)).body.lead.id).toBe(mine.id);
      await t.http().get(`/api/v1/leads/${theirs.id}`).set('X-API-Key', tenant.key).expect(404);
    });

    it('leaves requests without the header alone: two identical creates are two leads', async () => {
      const body = lead();
      const before = await leadCount();
      const [a, b] = [expectCreated(await post(undefined).send(body)), expectCreated(await post(undefined).send(body))];
      expect(a.id).not.toBe(b.id);
      expect(await leadCount()).toBe(before + 2);
    });
  });

  describe('conflicts and errors', () => {
    it('answers the same key with a different request 409 IDEMPOTENCY_KEY_REUSED, creates nothing, and still replays the original', async () => {
      const key = newKey();
      const body = lead();
      const first = await post(key).send(body);
      expectCreated(first);
      const before = await leadCount();
      for (const different of [
        { ...body, name: 'Someone Else' },
        { ...body, company: 'Navy' },
        { ...body, tags: [] },
      ]) {
        const reused = await post(key).send(different);
        expect(reused.status).toBe(409);
        expect(reused.body).toEqual(envelope(reused, 'IDEMPOTENCY_KEY_REUSED', 409));
        expect(reused.headers['idempotent-replayed']).toBeUndefined();
        expectMatchesContract(reused, 'POST', '/api/v1/leads');
      }
      expect(await leadCount()).toBe(before);
      expectReplayOf(await post(key).send(body), first);
    });

    it('does not store a request that fails validation: the corrected retry with the same key creates the lead', async () => {
      const key = newKey();
      const before = await leadCount();
      const invalid = await post(key).send({ name: 'Grace Hopper', email: 'not-an-address' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.details).toEqual([{ field: 'email', message: expect.any(String) }]);
      const foreign = await post(key).send(lead({ botId: foreignBot.id }));
      expect(foreign.status).toBe(400);
      expect(foreign.body.error.details).toEqual([{ field: 'botId', message: 'must be the id of one of your bots' }]);
      expect(await record(key)).toBeNull();
      expect(await leadCount()).toBe(before);

      const corrected = await post(key).send(lead({ botId: bot.id }));
      expect(expectCreated(corrected).botId).toBe(bot.id);
      expect(await leadCount()).toBe(before + 1);
    });

    it.each([
      ['empty', '', 'must be 1 to 255 printable ASCII characters'],
      ['256 characters', 'k'.repeat(256), 'must be 1 to 255 printable ASCII characters'],
      ['not ASCII', 'clé-1', 'must be 1 to 255 printable ASCII characters'],
      ['with a tab', 'a\tb', 'must be 1 to 255 printable ASCII characters'],
      ['sent twice', ['key-a', 'key-b'], 'must be sent once'],
    ])('answers an Idempotency-Key that is %s with 400 VALIDATION_ERROR on the header and creates nothing', async (_, value, message) => {
      const before = await leadCount();
      const response = await post(value).send(lead());
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: { ...envelope(response, 'VALIDATION_ERROR', 400).error, details: [{ field: 'Idempotency-Key', message }] } });
      expectMatchesContract(response, 'POST', '/api/v1/leads');
      expect(await leadCount()).toBe(before);
    });

    it('accepts 255 printable ASCII characters, spaces and punctuation included', async () => {
      const key = `${'~ !"#$%&()*+,-./:;<=>?@[\\]^_`{|}'.repeat(8)}${randomUUID()}`.slice(-255);
      expect(key).toHaveLength(255);
      const body = lead();
      const first = await post(key).send(body);
      expectCreated(first);
      expectReplayOf(await post(key).send(body), first);
    });

    it('checks the API key (401) and the scope (403) before the Idempotency-Key', async () => {
      const unauthenticated = await t.http().post('/api/v1/leads').set('Idempotency-Key', '').send(lead());
      expect(unauthenticated.body).toEqual(envelope(unauthenticated, 'INVALID_API_KEY', 401));
      const readOnly = await createKey(t, tenant.id, { scopes: ['leads:read'] });
      const refused = await post('', readOnly.key).send(lead());
      expect(refused.body).toEqual(envelope(refused, 'INSUFFICIENT_SCOPE', 403));
    });
  });

  describe('concurrency and expiry', () => {
    it('creates exactly one lead for 20 concurrent requests with one key; every answer is that lead or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
      const key = newKey();
      const body = lead();
      const before = await leadCount();
      const answers = await Promise.all(Array.from({ length: 20 }, () => post(key).send(body)));
      expect(await leadCount()).toBe(before + 1);

      const created = answers.filter((response) => response.status === 201 && response.headers['idempotent-replayed'] === undefined);
      expect(created).toHaveLength(1);
      const original = created[0];
      for (const answer of answers) {
        if (answer === original) continue;
        if (answer.status === 409) {
          expect(answer.body).toEqual(envelope(answer, 'IDEMPOTENCY_KEY_IN_USE', 409));
        } else {
          expectReplayOf(answer, original);
        }
      }
      expectReplayOf(await post(key).send(body), original);
    });

    it('makes a request wait for a transaction that holds its key; on PostgreSQL at most 2 s, then 409 IDEMPOTENCY_KEY_IN_USE', async () => {
      const key = newKey();
      const body = lead();
      const before = await leadCount();
      let holding!: () => void;
      let release!: () => void;
      const claimed = new Promise<void>((resolve) => (holding = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      // Another instance's request in flight: its claim is inserted and not yet committed. The
      // embedded database cannot answer anything meanwhile, so there it lets go after a second.
      const held = t.prisma
        .$transaction(
          async (tx) => {
            await tx.idempotencyRecord.create({ data: { tenantId: tenant.id, key, requestHash: 'in-flight', expiresAt: new Date(Date.now() + DAY_MS) } });
            holding();
            await Promise.race([released, new Promise((resolve) => setTimeout(resolve, t.connection.kind === 'postgres' ? 8_000 : 1_000))]);
            throw new Error('rolled back on purpose');
          },
          { timeout: 15_000 },
        )
        .catch((error: Error) => error.message);
      await claimed;
      const startedAt = Date.now();
      const response = await post(key).send(body);
      const waited = Date.now() - startedAt;
      release();
      expect(await held).toBe('rolled back on purpose');

      if (t.connection.kind === 'postgres') {
        expect(response.body).toEqual(envelope(response, 'IDEMPOTENCY_KEY_IN_USE', 409));
        expect(waited).toBeGreaterThanOrEqual(1_900);
        expect(waited).toBeLessThan(4_000);
        expect(await leadCount()).toBe(before);
        expectCreated(await post(key).send(body));
      } else {
        // The embedded database runs one transaction at a time: the request ran after the rollback.
        expectCreated(response);
      }
      expect(await leadCount()).toBe(before + 1);
    });

    it('ignores an expired record: the key creates a new lead, and its record starts a new 24 hours', async () => {
      const key = newKey();
      const body = lead();
      const first = expectCreated(await post(key).send(body));
      const past = new Date(Date.now() - DAY_MS - 60_000);
      await t.prisma.idempotencyRecord.update({
        where: { tenantId_key: { tenantId: tenant.id, key } },
        data: { createdAt: past, expiresAt: new Date(past.getTime() + DAY_MS) },
      });
      const before = await leadCount();

      const second = await post(key).send(body);
      const renewed = expectCreated(second);
      expect(renewed.id).not.toBe(first.id);
      expect(await leadCount()).toBe(before + 1);
      const stored = await record(key);
      expect(stored).toEqual(expect.objectContaining({ location: `/api/v1/leads/${renewed.id}`, status: 201 }));
      expect(stored!.expiresAt.getTime()).toBeGreaterThan(Date.now() + DAY_MS - 60_000);
      expectReplayOf(await post(key).send(body), second);
    });

    it('lets an expired key be used with a different request too', async () => {
      const key = newKey();
      expectCreated(await post(key).send(lead()));
      await t.prisma.idempotencyRecord.update({ where: { tenantId_key: { tenantId: tenant.id, key } }, data: { expiresAt: new Date(Date.now() - 1_000) } });
      expect(expectCreated(await post(key).send(lead({ name: 'Someone Else' }))).name).toBe('Someone Else');
    });

    it("deletes the tenant's expired records when a new key is claimed, and only the tenant's", async () => {
      const [mine, theirs, live] = [newKey(), newKey(), newKey()];
      expectCreated(await post(mine).send(lead()));
      expectCreated(await post(theirs, other.key).send(lead()));
      expectCreated(await post(live).send(lead()));
      const expired = { expiresAt: new Date(Date.now() - 1_000) };
      await t.prisma.idempotencyRecord.update({ where: { tenantId_key: { tenantId: tenant.id, key: mine } }, data: expired });
      await t.prisma.idempotencyRecord.update({ where: { tenantId_key: { tenantId: other.id, key: theirs } }, data: expired });

      expectCreated(await post(newKey()).send(lead()));
      expect(await record(mine)).toBeNull();
      expect(await record(theirs, other.id)).not.toBeNull();
      expect(await record(live)).not.toBeNull();
    });
  });
});
