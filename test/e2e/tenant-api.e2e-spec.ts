import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import { ApiKeyActivityRecorder } from '../../src/tenancy/api-keys/api-key-activity.recorder';
import { ALL_SCOPES } from '../../src/common/access/scopes';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant } from '../support/factories';
import { addMember, asUser, signUp, TestUser } from '../support/users';

jest.setTimeout(60_000);

const LOOPBACK = /^(?:::ffff:)?127\.0\.0\.1$|^::1$/;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** The users-only routes of this suite, with a valid request each (ids filled in by the caller). */
type Method = 'get' | 'post' | 'patch' | 'delete';

/** Sends the request, with its JSON body if it has one. */
const call = (client: Record<Method, (path: string) => request.Test>, method: Method, path: string, body?: object) =>
  body ? client[method](path).send(body) : client[method](path);

const USER_ROUTES = (ids: { keyId: string; botId: string }) =>
  [
    ['get', '/api/v1/api-keys', undefined],
    ['post', '/api/v1/api-keys', { name: 'k', scopes: [], type: 'public' }],
    ['delete', `/api/v1/api-keys/${ids.keyId}`, undefined],
    ['get', `/api/v1/api-keys/${ids.keyId}/activity`, undefined],
    ['post', '/api/v1/bots', { name: 'Bot' }],
    ['patch', `/api/v1/bots/${ids.botId}`, { name: 'Renamed' }],
    ['get', '/api/v1/audit-log', undefined],
  ] as const;

describe('The tenant API for users: API keys, key activity, bots, audit log', () => {
  let t: TestApp;
  /** Owner of a Pro tenant. */
  let owner: TestUser;
  /** Owner of a Free tenant. */
  let freeOwner: TestUser;
  const as = (user: TestUser) => asUser(t, user.cookie, user.tenantId);

  beforeAll(async () => {
    t = await createTestApp();
    owner = await signUp(t, { tenantName: 'Pro Co' });
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
    freeOwner = await signUp(t, { tenantName: 'Free Co' });
  });
  afterAll(() => t?.close());

  describe('API keys', () => {
    it('creates a secret key on Pro: 201 {apiKey, key}, the key only in that answer, and it works', async () => {
      const created = await as(owner)
        .post('/api/v1/api-keys')
        .send({ name: 'CRM', scopes: ['bots:read', 'leads:read'] });
      expect({ status: created.status, body: created.body }).toEqual({
        status: 201,
        body: {
          apiKey: {
            id: expect.stringMatching(UUID),
            name: 'CRM',
            type: 'secret',
            scopes: ['bots:read', 'leads:read'],
            prefix: 'svc_sk_',
            last4: created.body.key.slice(-4),
            expiresAt: null,
            lastUsedAt: null,
            createdAt: expect.stringMatching(ISO_MS),
            createdBy: { type: 'user', userId: owner.id, name: 'Test User' },
          },
          key: expect.stringMatching(/^svc_sk_[0-9A-Za-z]{33}$/),
        },
      });
      const listed = await as(owner).get('/api/v1/api-keys').expect(200);
      expect(listed.body.apiKeys).toContainEqual(created.body.apiKey);
      expect(listed.text).not.toContain(created.body.key);
      expect(listed.text).not.toContain(created.body.key.slice(7));
      expect((await t.http().get('/api/v1/bots').set('X-API-Key', created.body.key)).status).toBe(200);
    });

    it('lists only the tenant’s keys, oldest first, never the key', async () => {
      const a = (await as(freeOwner).post('/api/v1/api-keys').send({ name: 'A', scopes: [], type: 'public' }).expect(201)).body.apiKey;
      const b = (await as(freeOwner).post('/api/v1/api-keys').send({ name: 'B', scopes: [], type: 'public' }).expect(201)).body.apiKey;
      const listed = await as(freeOwner).get('/api/v1/api-keys');
      expect({ status: listed.status, ids: listed.body.apiKeys.map((key: { id: string }) => key.id) }).toEqual({ status: 200, ids: [a.id, b.id] });
      for (const key of listed.body.apiKeys)
        expect(Object.keys(key).sort()).toEqual(['createdAt', 'createdBy', 'expiresAt', 'id', 'last4', 'lastUsedAt', 'name', 'prefix', 'scopes', 'type']);
    });

    it('refuses a secret key on Free with 403 PLAN_UPGRADE_REQUIRED, and creates nothing', async () => {
      const before = await t.prisma.apiKey.count({ where: { tenantId: freeOwner.tenantId } });
      expectError(
        await as(freeOwner)
          .post('/api/v1/api-keys')
          .send({ name: 'Nope', scopes: ['bots:read'] }),
        403,
        'PLAN_UPGRADE_REQUIRED',
      );
      expectError(await as(freeOwner).post('/api/v1/api-keys').send({ name: 'Nope', scopes: [], type: 'secret' }), 403, 'PLAN_UPGRADE_REQUIRED');
      expect(await t.prisma.apiKey.count({ where: { tenantId: freeOwner.tenantId } })).toBe(before);
    });

    it('creates a public key on Free, which serves the widget', async () => {
      const bot = (await as(freeOwner).post('/api/v1/bots').send({ name: 'Free Bot' }).expect(201)).body.bot;
      const created = await as(freeOwner).post('/api/v1/api-keys').send({ name: 'Widget', scopes: [], type: 'public' });
      expect({ status: created.status, type: created.body.apiKey?.type, key: created.body.key }).toEqual({
        status: 201,
        type: 'public',
        key: expect.stringMatching(/^svc_pk_/),
      });
      const widget = await t.http().get(`/api/v1/widget/bots/${bot.id}`).set('X-API-Key', created.body.key);
      expect({ status: widget.status, id: widget.body.bot?.id }).toEqual({ status: 200, id: bot.id });
    });

    it('the admin API creates public keys on Free too, and still refuses secret ones', async () => {
      const created = await t.admin().post(`/admin/v1/tenants/${freeOwner.tenantId}/api-keys`).send({ name: 'Widget', scopes: [], type: 'public' });
      expect({ status: created.status, type: created.body.apiKey?.type, createdBy: created.body.apiKey?.createdBy }).toEqual({
        status: 201,
        type: 'public',
        createdBy: { type: 'admin-api' },
      });
      // The tenant's own list names the admin API as its creator too.
      const listed = (await as(freeOwner).get('/api/v1/api-keys').expect(200)).body.apiKeys as { id: string; createdBy: unknown }[];
      expect(listed.find((key) => key.id === created.body.apiKey.id)?.createdBy).toEqual({ type: 'admin-api' });
      expectError(await t.admin().post(`/admin/v1/tenants/${freeOwner.tenantId}/api-keys`).send({ name: 'Secret', scopes: [] }), 403, 'PLAN_UPGRADE_REQUIRED');
    });

    it('creates a public key without scopes, as the dashboard does (a public key takes none); a secret key still needs them', async () => {
      const created = await as(freeOwner).post('/api/v1/api-keys').send({ name: 'Widget', type: 'public' });
      expect({ status: created.status, type: created.body.apiKey?.type, scopes: created.body.apiKey?.scopes }).toEqual({
        status: 201,
        type: 'public',
        scopes: [],
      });
      expectError(await as(owner).post('/api/v1/api-keys').send({ name: 'S', type: 'secret' }), 400, 'VALIDATION_ERROR', [
        { field: 'scopes', message: 'must be an array of scopes' },
      ]);
    });

    it('refuses scopes on a public key with 400 on scopes', async () => {
      expectError(
        await as(owner)
          .post('/api/v1/api-keys')
          .send({ name: 'P', scopes: ['bots:read'], type: 'public' }),
        400,
        'VALIDATION_ERROR',
        [{ field: 'scopes', message: 'must be empty for a public key (it may call only verify and the widget endpoints)' }],
      );
    });

    it.each([
      [{ scopes: [] }, 'name'],
      [{ name: 'x', scopes: ['everything'] }, 'scopes'],
      [{ name: 'x', scopes: [], type: 'restricted' }, 'type'],
      [{ name: 'x', scopes: [], key: 'svc_sk_chosen' }, 'key'],
      [{ name: 'x', scopes: [], expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
    ])('refuses %j with 400 on %s', async (body, field) => {
      expectError(await as(owner).post('/api/v1/api-keys').send(body), 400, 'VALIDATION_ERROR', [{ field, message: expect.any(String) }]);
    });

    it('deletes a key: 204, the key is refused at once, a second delete is 404', async () => {
      const created = (
        await as(owner)
          .post('/api/v1/api-keys')
          .send({ name: 'Temp', scopes: ['bots:read'] })
          .expect(201)
      ).body;
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', created.key)).status).toBe(200);
      const deleted = await as(owner).delete(`/api/v1/api-keys/${created.apiKey.id}`);
      expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: '' });
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', created.key), 401, 'INVALID_API_KEY');
      expectError(await as(owner).delete(`/api/v1/api-keys/${created.apiKey.id}`), 404, 'NOT_FOUND');
      expectError(await as(owner).delete('/api/v1/api-keys/not-a-uuid'), 404, 'NOT_FOUND');
      const listed = await as(owner).get('/api/v1/api-keys').expect(200);
      expect(listed.body.apiKeys.map((key: { id: string }) => key.id)).not.toContain(created.apiKey.id);
    });

    it("cannot delete another tenant's key: 404, and that key keeps working", async () => {
      const other = await createTenant(t);
      expectError(await as(owner).delete(`/api/v1/api-keys/${other.keyId}`), 404, 'NOT_FOUND');
      expect((await t.http().get('/api/v1/verify').set('X-API-Key', other.key)).status).toBe(200);
    });

    it('audits creation and deletion with the user as actor', async () => {
      const created = (await as(owner).post('/api/v1/api-keys').set('X-Request-Id', 'key-create-1').send({ name: 'Audited', scopes: [] }).expect(201)).body;
      await as(owner).delete(`/api/v1/api-keys/${created.apiKey.id}`).set('X-Request-Id', 'key-delete-1').expect(204);
      const events = (await as(owner).get('/api/v1/audit-log?limit=2').expect(200)).body.events;
      expect(events).toEqual([
        expect.objectContaining({ action: 'api_key.deleted', actor: `user:${owner.id}`, requestId: 'key-delete-1', targetId: created.apiKey.id }),
        expect.objectContaining({ action: 'api_key.created', actor: `user:${owner.id}`, requestId: 'key-create-1', targetId: created.apiKey.id }),
      ]);
    });
  });

  describe('API key activity', () => {
    let key: { id: string; key: string };
    let narrow: { id: string; key: string };
    const activity = (id: string) => as(owner).get(`/api/v1/api-keys/${id}/activity`);
    const recorder = () => t.app.get(ApiKeyActivityRecorder);

    beforeAll(async () => {
      key = await createKey(t, owner.tenantId, { scopes: ['bots:read'] });
      narrow = await createKey(t, owner.tenantId, { scopes: ['bots:read'] });
    });

    it('is the last 30 UTC days, oldest first, zeros included, for a key never used', async () => {
      const response = await activity(narrow.id);
      expect(response.status).toBe(200);
      expect(response.body.lastUsedAt).toBeNull();
      expect(response.body.days).toHaveLength(30);
      expect(response.body.days.map((day: { date: string }) => day.date)).toEqual(Array.from({ length: 30 }, (_, i) => daysAgo(29 - i)));
      expect(response.body.days.every((day: { requests: number; errors: number }) => day.requests === 0 && day.errors === 0)).toBe(true);
      expect(Object.keys(response.body).sort()).toEqual(['days', 'lastUsedAt']);
    });

    it('counts real calls, errors being answers of 400 and above, before and after they are stored', async () => {
      await recorder().flush();
      for (let i = 0; i < 3; i++) expect((await t.http().get('/api/v1/bots').set('X-API-Key', key.key)).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await t.http().get(`/api/v1/bots/${randomUUID()}`).set('X-API-Key', key.key)).status).toBe(404);
      expect((await t.http().get('/api/v1/leads').set('X-API-Key', key.key)).status).toBe(403);
      expect((await t.http().get('/api/v1/bots?limit=abc').set('X-API-Key', key.key)).status).toBe(400);

      // Not stored yet: this instance adds what it holds in memory.
      expect(await t.prisma.apiKeyActivity.count({ where: { apiKeyId: key.id } })).toBe(0);
      const before = await activity(key.id).expect(200);
      expect(before.body.days.at(-1)).toEqual({ date: today(), requests: 7, errors: 4 });
      expect(before.body.lastUsedAt).toMatch(ISO_MS);

      await recorder().flush();
      const rows = await t.prisma.apiKeyActivity.findMany({ where: { apiKeyId: key.id }, select: { tenantId: true, requests: true, errors: true } });
      expect(rows).toEqual([{ tenantId: owner.tenantId, requests: 7, errors: 4 }]);
      expect((await activity(key.id).expect(200)).body.days.at(-1)).toEqual({ date: today(), requests: 7, errors: 4 });

      // Stored and unstored counts add up; a second flush adds to the stored row.
      await t.http().get(`/api/v1/bots/${randomUUID()}`).set('X-API-Key', key.key).expect(404);
      expect((await activity(key.id).expect(200)).body.days.at(-1)).toEqual({ date: today(), requests: 8, errors: 5 });
      await recorder().flush();
      expect(await t.prisma.apiKeyActivity.findMany({ where: { apiKeyId: key.id }, select: { requests: true, errors: true } })).toEqual([
        { requests: 8, errors: 5 },
      ]);
      // The other key's activity is its own.
      expect((await activity(narrow.id).expect(200)).body.days.at(-1)).toEqual({ date: today(), requests: 0, errors: 0 });
    });

    it('shows stored days of the last 30 days, and none before', async () => {
      const day = (date: string) => new Date(`${date}T00:00:00Z`);
      await t.prisma.apiKeyActivity.createMany({
        data: [
          { tenantId: owner.tenantId, apiKeyId: narrow.id, day: day(daysAgo(3)), requests: 12, errors: 2 },
          { tenantId: owner.tenantId, apiKeyId: narrow.id, day: day(daysAgo(29)), requests: 5, errors: 0 },
          { tenantId: owner.tenantId, apiKeyId: narrow.id, day: day(daysAgo(30)), requests: 99, errors: 99 },
        ],
      });
      const days = (await activity(narrow.id).expect(200)).body.days as { date: string; requests: number; errors: number }[];
      expect(days.filter((d) => d.requests > 0)).toEqual([
        { date: daysAgo(29), requests: 5, errors: 0 },
        { date: daysAgo(3), requests: 12, errors: 2 },
      ]);
    });

    it('counts the refusals of a public key and of a key on a users-only route', async () => {
      const publicKey = await createKey(t, owner.tenantId, { type: 'public', scopes: [] });
      await t.http().get('/api/v1/bots').set('X-API-Key', publicKey.key).expect(403);
      await t.http().get('/api/v1/api-keys').set('X-API-Key', publicKey.key).expect(403);
      await t.http().get('/api/v1/verify').set('X-API-Key', publicKey.key).expect(200);
      expect((await activity(publicKey.id).expect(200)).body.days.at(-1)).toEqual({ date: today(), requests: 3, errors: 2 });
    });

    it("answers 404 for another tenant's key, a deleted key and a malformed id", async () => {
      const other = await createTenant(t);
      expectError(await activity(other.keyId), 404, 'NOT_FOUND');
      const temp = await createKey(t, owner.tenantId);
      await as(owner).delete(`/api/v1/api-keys/${temp.id}`).expect(204);
      expectError(await activity(temp.id), 404, 'NOT_FOUND');
      expectError(await activity('nope'), 404, 'NOT_FOUND');
      expectError(await as(owner).get(`/api/v1/api-keys/${key.id}/activity?days=7`), 400, 'VALIDATION_ERROR', [{ field: 'days', message: expect.any(String) }]);
    });

    it('stores the counts when an instance shuts down', async () => {
      // A second instance on the same database, whose shutdown leaves the shared connection open.
      const second = await createTestApp({}, { connection: { ...t.connection, close: async () => undefined } });
      const fresh = await createKey(t, owner.tenantId, { scopes: ['bots:read'] });
      await second.http().get('/api/v1/bots').set('X-API-Key', fresh.key).expect(200);
      await second.http().get(`/api/v1/bots/${randomUUID()}`).set('X-API-Key', fresh.key).expect(404);
      expect(await t.prisma.apiKeyActivity.count({ where: { apiKeyId: fresh.id } })).toBe(0);
      await second.close();
      expect(await t.prisma.apiKeyActivity.findMany({ where: { apiKeyId: fresh.id }, select: { requests: true, errors: true } })).toEqual([
        { requests: 2, errors: 1 },
      ]);
    });
  });

  describe('bots', () => {
    it('creates a bot: 201 {bot}, audited with the user as actor', async () => {
      const created = await as(owner)
        .post('/api/v1/bots')
        .set('X-Request-Id', 'bot-create-1')
        .send({ name: 'Helper', primaryColor: '#123456', language: 'de' });
      expect({ status: created.status, bot: created.body.bot }).toEqual({
        status: 201,
        bot: expect.objectContaining({
          id: expect.stringMatching(UUID),
          name: 'Helper',
          primaryColor: '#123456',
          language: 'de',
          isActive: true,
          avatarUrl: null,
          messageCount: 0,
          conversationCount: 0,
          knowledgeBaseSize: 0,
        }),
      });
      const listed = await as(owner).get('/api/v1/bots').expect(200);
      expect(listed.body.bots).toContainEqual(created.body.bot);
      const [event] = (await as(owner).get('/api/v1/audit-log?limit=1').expect(200)).body.events;
      expect(event).toMatchObject({ action: 'bot.created', actor: `user:${owner.id}`, requestId: 'bot-create-1', targetId: created.body.bot.id });
    });

    it("refuses a bot beyond the plan's botsLimit with 403 PLAN_LIMIT_REACHED", async () => {
      const user = await signUp(t);
      await as(user).post('/api/v1/bots').send({ name: 'The one' }).expect(201);
      expectError(await as(user).post('/api/v1/bots').send({ name: 'One too many' }), 403, 'PLAN_LIMIT_REACHED');
      expect(await t.prisma.bot.count({ where: { tenantId: user.tenantId } })).toBe(1);
    });

    it('refuses bad bodies with 400', async () => {
      expectError(await as(owner).post('/api/v1/bots').send({}), 400, 'VALIDATION_ERROR', [{ field: 'name', message: expect.any(String) }]);
      expectError(await as(owner).post('/api/v1/bots').send({ name: 'x', primaryColor: 'blue' }), 400, 'VALIDATION_ERROR', [
        { field: 'primaryColor', message: expect.any(String) },
      ]);
      expectError(await as(owner).post('/api/v1/bots').send({ name: 'x', tenantId: randomUUID() }), 400, 'VALIDATION_ERROR', [
        { field: 'tenantId', message: 'is not an allowed field' },
      ]);
    });

    it('updates a bot: {bot}, and emits bot.updated with the previous attributes', async () => {
      await as(owner)
        .post('/api/v1/webhooks')
        .send({ url: 'https://hooks.example.com/bots', events: ['bot.updated'] })
        .expect(201);
      const bot = await createBot(t, owner.tenantId, { name: 'Before', language: 'en' });
      const updated = await as(owner)
        .patch(`/api/v1/bots/${bot.id}`)
        .send({ name: 'After', isActive: false, primaryColor: '#abcdef', language: 'fr', avatarUrl: 'https://cdn.example.com/a.png' });
      expect({ status: updated.status, bot: updated.body.bot }).toEqual({
        status: 200,
        bot: expect.objectContaining({
          id: bot.id,
          name: 'After',
          isActive: false,
          primaryColor: '#abcdef',
          language: 'fr',
          avatarUrl: 'https://cdn.example.com/a.png',
        }),
      });
      const events = await t.prisma.webhookEvent.findMany({ where: { tenantId: owner.tenantId, type: 'bot.updated' }, select: { data: true } });
      expect(events).toEqual([
        {
          data: { object: updated.body.bot, previousAttributes: expect.objectContaining({ name: 'Before', isActive: true, language: 'en', avatarUrl: null }) },
        },
      ]);
      const audit = (await as(owner).get(`/api/v1/audit-log?actor=user:${owner.id}&limit=2`).expect(200)).body.events;
      expect(audit.map((event: { action: string }) => event.action).sort()).toEqual(['bot.deactivated', 'bot.updated']);
    });

    it("answers 404 for another tenant's bot and leaves it as it was", async () => {
      const other = await createTenant(t);
      const theirs = await createBot(t, other.id, { name: 'Theirs' });
      expectError(await as(owner).patch(`/api/v1/bots/${theirs.id}`).send({ name: 'Hijacked', isActive: false }), 404, 'NOT_FOUND');
      expectError(await as(owner).patch('/api/v1/bots/nope').send({ name: 'x' }), 404, 'NOT_FOUND');
      const stored = await t.prisma.bot.findUniqueOrThrow({ where: { id: theirs.id }, select: { name: true, isActive: true } });
      expect(stored).toEqual({ name: 'Theirs', isActive: true });
    });
  });

  describe('audit log', () => {
    let user: TestUser;
    let key: { id: string };

    beforeAll(async () => {
      user = await signUp(t, { tenantName: 'Audited Co' });
      await t.admin().patch(`/admin/v1/tenants/${user.tenantId}`).set('X-Request-Id', 'admin-1').send({ plan: 'business' }).expect(200);
      key = (
        await as(user)
          .post('/api/v1/api-keys')
          .send({ name: 'Settings', scopes: ['settings:write'] })
          .expect(201)
      ).body.apiKey;
    });

    it('answers {events, pagination} newest first, with actor, request id and client IP of each change', async () => {
      const created = (
        await as(user)
          .post('/api/v1/api-keys')
          .set('X-Request-Id', 'user-req-1')
          .send({ name: 'Writer', scopes: ['settings:write'] })
          .expect(201)
      ).body;
      await t.http().patch('/api/v1/settings').set('X-API-Key', created.key).set('X-Request-Id', 'key-req-1').send({ timezone: 'Europe/Berlin' }).expect(200);
      const response = await as(user).get('/api/v1/audit-log?limit=3');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        events: [
          {
            id: expect.stringMatching(UUID),
            action: 'settings.updated',
            actor: `api-key:${created.apiKey.id}`,
            requestId: 'key-req-1',
            ip: expect.stringMatching(LOOPBACK),
            targetType: 'tenant',
            targetId: user.tenantId,
            data: expect.any(Object),
            createdAt: expect.stringMatching(ISO_MS),
          },
          {
            id: expect.stringMatching(UUID),
            action: 'api_key.created',
            actor: `user:${user.id}`,
            requestId: 'user-req-1',
            ip: expect.stringMatching(LOOPBACK),
            targetType: 'api_key',
            targetId: created.apiKey.id,
            data: expect.any(Object),
            createdAt: expect.stringMatching(ISO_MS),
          },
          expect.objectContaining({ action: 'api_key.created', actor: `user:${user.id}`, targetId: key.id }),
        ],
        pagination: { total: expect.any(Number), limit: 3, offset: 0, hasMore: true },
      });
      const admin = (await as(user).get('/api/v1/audit-log?actor=admin-api').expect(200)).body.events;
      expect(admin).toEqual([
        expect.objectContaining({
          action: 'tenant.plan_changed',
          actor: 'admin-api',
          requestId: 'admin-1',
          ip: expect.stringMatching(LOOPBACK),
          data: { from: 'free', to: 'business' },
        }),
      ]);
    });

    it('filters by actor, action and a from/to window, and pages the filtered list', async () => {
      const all = (await as(user).get('/api/v1/audit-log?limit=100').expect(200)).body.events as { actor: string; action: string; createdAt: string }[];
      const mine = await as(user).get(`/api/v1/audit-log?actor=user:${user.id}`).expect(200);
      expect(mine.body.events).toEqual(all.filter((event) => event.actor === `user:${user.id}`));
      expect(mine.body.pagination.total).toBe(mine.body.events.length);
      const created = await as(user).get('/api/v1/audit-log?action=api_key.created&limit=1').expect(200);
      expect(created.body).toEqual({
        events: [all.find((event) => event.action === 'api_key.created')],
        pagination: { total: 2, limit: 1, offset: 0, hasMore: true },
      });
      const both = await as(user).get(`/api/v1/audit-log?action=api_key.created&actor=user:${user.id}&offset=1`).expect(200);
      expect(both.body.events).toEqual(all.filter((event) => event.action === 'api_key.created').slice(1));
      const oldest = all.at(-1)!;
      const window = await as(user)
        .get(`/api/v1/audit-log?from=${encodeURIComponent(oldest.createdAt)}&to=${encodeURIComponent(oldest.createdAt)}`)
        .expect(200);
      expect(window.body.events).toContainEqual(oldest);
      expect(window.body.events.every((event: { createdAt: string }) => event.createdAt === oldest.createdAt)).toBe(true);
      expect((await as(user).get('/api/v1/audit-log?to=2000-01-01').expect(200)).body).toEqual({
        events: [],
        pagination: { total: 0, limit: 20, offset: 0, hasMore: false },
      });
      expect((await as(user).get(`/api/v1/audit-log?actor=user:${randomUUID()}`).expect(200)).body.events).toEqual([]);
    });

    it('the admin API takes the same filters', async () => {
      const response = await t.admin().get(`/admin/v1/tenants/${user.tenantId}/audit-log?actor=admin-api&action=tenant.plan_changed`).expect(200);
      expect(response.body.events).toEqual([
        expect.objectContaining({ actor: 'admin-api', action: 'tenant.plan_changed', ip: expect.stringMatching(LOOPBACK) }),
      ]);
    });

    it.each([
      ['actor=root', 'actor'],
      ['actor=user:123', 'actor'],
      ['actor=', 'actor'],
      ['action=DROP%20TABLE', 'action'],
      ['action=' + 'a'.repeat(200), 'action'],
      ['from=yesterday', 'from'],
      ['to=2026-13-01', 'to'],
      ['from=2026-02-01&to=2026-01-01', 'from'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['offset=-1', 'offset'],
      ['page=2', 'page'],
    ])('refuses ?%s with 400 on %s', async (query, field) => {
      expectError(await as(user).get(`/api/v1/audit-log?${query}`), 400, 'VALIDATION_ERROR', [{ field, message: expect.any(String) }]);
    });

    it("shows only the tenant's own events", async () => {
      const events = (await as(freeOwner).get('/api/v1/audit-log?limit=100').expect(200)).body.events as { targetId: string }[];
      expect(events.length).toBeGreaterThan(0);
      expect(events.filter((event) => event.targetId === user.tenantId || event.targetId === key.id)).toEqual([]);
    });
  });

  describe('who may call these routes', () => {
    let ids: { keyId: string; botId: string };

    beforeAll(async () => {
      ids = { keyId: (await createKey(t, owner.tenantId)).id, botId: (await createBot(t, owner.tenantId)).id };
    });

    it.each(USER_ROUTES({ keyId: 'k', botId: 'b' }).map(([method, path]) => `${method.toUpperCase()} ${path}`))(
      '%s: a key, even with every scope, gets 403 INSUFFICIENT_SCOPE and changes nothing',
      async (route) => {
        const tenant = await createTenant(t, { plan: 'enterprise', scopes: [...ALL_SCOPES] });
        const index = USER_ROUTES({ keyId: 'k', botId: 'b' }).findIndex(([method, path]) => `${method.toUpperCase()} ${path}` === route);
        const [method, path, body] = USER_ROUTES({ keyId: tenant.keyId, botId: (await createBot(t, tenant.id)).id })[index];
        const withKey = {
          get: (p: string) => t.http().get(p).set('X-API-Key', tenant.key),
          post: (p: string) => t.http().post(p).set('X-API-Key', tenant.key),
          patch: (p: string) => t.http().patch(p).set('X-API-Key', tenant.key),
          delete: (p: string) => t.http().delete(p).set('X-API-Key', tenant.key),
        };
        expectError(await call(withKey, method, path, body), 403, 'INSUFFICIENT_SCOPE');
        expect((await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key)).status).toBe(200);
        expect(await t.prisma.bot.count({ where: { tenantId: tenant.id } })).toBe(1);
      },
    );

    it.each(USER_ROUTES({ keyId: 'k', botId: 'b' }).map(([method, path]) => `${method.toUpperCase()} ${path}`))(
      '%s: 401 without a session, 400 TENANT_REQUIRED without X-Tenant-Id, 403 NOT_A_MEMBER for another tenant',
      async (route) => {
        const index = USER_ROUTES({ keyId: 'k', botId: 'b' }).findIndex(([method, path]) => `${method.toUpperCase()} ${path}` === route);
        const [method, path, body] = USER_ROUTES(ids)[index];
        const anonymous = {
          get: (p: string) => t.http().get(p),
          post: (p: string) => t.http().post(p),
          patch: (p: string) => t.http().patch(p),
          delete: (p: string) => t.http().delete(p),
        };
        expectError(await call(anonymous, method, path, body).set('X-Tenant-Id', owner.tenantId), 401, 'INVALID_SESSION');
        expectError(await call(asUser(t, owner.cookie, null), method, path, body), 400, 'TENANT_REQUIRED');
        expectError(await call(asUser(t, freeOwner.cookie, owner.tenantId), method, path, body), 403, 'NOT_A_MEMBER');
      },
    );

    it('refuses a write without the dashboard’s Origin with 403 CSRF_REJECTED', async () => {
      const response = await t
        .http()
        .post('/api/v1/bots')
        .set('Cookie', owner.cookie)
        .set('X-Tenant-Id', owner.tenantId)
        .set('Origin', 'https://evil.example')
        .send({ name: 'CSRF' });
      expectError(response, 403, 'CSRF_REJECTED');
    });

    describe('roles (members added through invitations)', () => {
      let admin: TestUser;
      let agent: TestUser;
      let viewer: TestUser;

      beforeAll(async () => {
        admin = await addMember(t, owner, 'admin');
        agent = await addMember(t, owner, 'agent');
        viewer = await addMember(t, owner, 'viewer');
      });

      it('lets an admin create and delete keys, create and update bots, and read the audit log and key activity', async () => {
        const created = (
          await as(admin)
            .post('/api/v1/api-keys')
            .send({ name: 'By admin', scopes: ['bots:read'] })
            .expect(201)
        ).body.apiKey;
        await as(admin).get(`/api/v1/api-keys/${created.id}/activity`).expect(200);
        await as(admin).delete(`/api/v1/api-keys/${created.id}`).expect(204);
        const bot = (await as(admin).patch(`/api/v1/bots/${ids.botId}`).send({ name: 'By admin' }).expect(200)).body.bot;
        expect(bot.name).toBe('By admin');
        const [event] = (await as(admin).get('/api/v1/audit-log?limit=1').expect(200)).body.events;
        expect(event).toMatchObject({ action: 'bot.updated', actor: `user:${admin.id}` });
      });

      it.each(['agent', 'viewer'] as const)('refuses every route to an %s with 403 INSUFFICIENT_ROLE, and changes nothing', async (role) => {
        const member = role === 'agent' ? agent : viewer;
        const before = await t.prisma.bot.findUniqueOrThrow({ where: { id: ids.botId } });
        for (const [method, path, body] of USER_ROUTES(ids)) {
          expectError(await call(as(member), method, path, body), 403, 'INSUFFICIENT_ROLE');
        }
        expect(await t.prisma.bot.findUniqueOrThrow({ where: { id: ids.botId } })).toEqual(before);
        expect((await as(owner).get('/api/v1/api-keys').expect(200)).body.apiKeys.map((key: { id: string }) => key.id)).toContain(ids.keyId);
      });
    });
  });
});
