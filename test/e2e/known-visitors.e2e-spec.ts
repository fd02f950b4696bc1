import { SignJWT } from 'jose';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey } from '../support/factories';
import { addMember, asUser, signUp, TestUser, UserClient } from '../support/users';
import type { PrivacyOptions } from '../../src/privacy/privacy-options';
import { PRIVACY_OPTIONS } from '../../src/privacy/privacy-options';

/** API_DECISIONS part 4, Known visitors: the identity secret, identity tokens in widget sessions, and what follows from them. */
describe('Known visitors (identity tokens)', () => {
  const SECRET_FORMAT = /^idsec_[A-Za-z0-9_-]{43}$/;
  const HOUR_S = 3600;
  let t: TestApp;
  let owner: TestUser;
  let dashboard: UserClient;
  let key: string;
  let publicKey: string;
  let botId: string;
  let otherBotId: string;

  beforeAll(async () => {
    t = await createTestApp({ PRIVACY_WORKER: 'true' }, { privacy: { erasurePollMs: 50, tenantIds: [] } });
    owner = await signUp(t);
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'enterprise' }).expect(200);
    // This suite's erasures only: other suites' tenants are not this worker's.
    Object.assign(t.app.get<PrivacyOptions>(PRIVACY_OPTIONS), { tenantIds: [owner.tenantId] });
    dashboard = asUser(t, owner.cookie, owner.tenantId);
    key = (await createKey(t, owner.tenantId)).key;
    publicKey = (await createKey(t, owner.tenantId, { type: 'public' })).key;
    botId = (await createBot(t, owner.tenantId)).id;
    otherBotId = (await createBot(t, owner.tenantId)).id;
  });
  afterAll(() => t.close());

  const nowS = () => Math.floor(Date.now() / 1000);
  const api = (method: 'get' | 'post' | 'patch', path: string) => t.http()[method](path).set('X-API-Key', key);
  const newSecret = async (client = dashboard): Promise<string> => (await client.post('/api/v1/identity-secret').expect(201)).body.secret;
  const settings = async () => (await api('get', '/api/v1/settings').expect(200)).body.settings;

  /** An HS256 identity token as the tenant's back end signs it; `claims` override or (undefined) drop the defaults. */
  const sign = (secret: string, claims: Record<string, unknown> = {}, alg = 'HS256'): Promise<string> => {
    const now = nowS();
    const payload = Object.fromEntries(Object.entries({ sub: 'user-1', iat: now, exp: now + HOUR_S, ...claims }).filter(([, value]) => value !== undefined));
    return new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
  };
  /** A JWT with `alg: none` and no signature: what a forger sends. */
  const unsigned = (claims: Record<string, unknown>) =>
    `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

  const session = (body: Record<string, unknown>, bot = botId) =>
    t
      .http()
      .post('/api/v1/widget/sessions')
      .set('X-API-Key', publicKey)
      .send({ botId: bot, ...body });
  const identified = async (identityToken: string, extra: Record<string, unknown> = {}) =>
    (await session({ identityToken, ...extra }).expect(201)).body as { visitorToken: string; visitorId: string };
  const startConversation = async (visitorToken: string) =>
    (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', publicKey).set('X-Visitor-Token', visitorToken).send({}).expect(201)).body
      .conversation;

  describe('the identity secret', () => {
    it('is made by owners and admins only, shown once, audited; agents, viewers and API keys get 403', async () => {
      const [admin, agent, viewer] = [await addMember(t, owner, 'admin'), await addMember(t, owner, 'agent'), await addMember(t, owner, 'viewer')];
      for (const member of [agent, viewer]) {
        const client = asUser(t, member.cookie, owner.tenantId);
        expectError(await client.post('/api/v1/identity-secret'), 403, 'INSUFFICIENT_ROLE');
        expectError(await client.delete('/api/v1/identity-secret'), 403, 'INSUFFICIENT_ROLE');
      }
      expectError(await t.http().post('/api/v1/identity-secret').set('X-API-Key', key), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.http().delete('/api/v1/identity-secret').set('X-API-Key', key), 403, 'INSUFFICIENT_SCOPE');

      const first = await newSecret(asUser(t, admin.cookie, owner.tenantId));
      const second = await newSecret();
      expect(first).toMatch(SECRET_FORMAT);
      expect(second).toMatch(SECRET_FORMAT);
      expect(second).not.toBe(first);
      const shown = await api('get', '/api/v1/settings').expect(200);
      expect(shown.body.settings.identityVerification).toEqual({ configured: true, required: false });
      expect(shown.text).not.toContain(second.slice(6));

      await dashboard.delete('/api/v1/identity-secret').expect(204);
      // Deleting none: nothing changes, nothing audited.
      await dashboard.delete('/api/v1/identity-secret').expect(204);
      expect((await settings()).identityVerification).toEqual({ configured: false, required: false });
      const audit = (await t.admin().get(`/admin/v1/tenants/${owner.tenantId}/audit-log?limit=10`).expect(200)).body.events as Record<string, unknown>[];
      expect(audit.filter((event) => String(event.action).startsWith('identity_secret.')).map((event) => [event.action, event.targetType])).toEqual([
        ['identity_secret.deleted', 'tenant'],
        ['identity_secret.created', 'tenant'],
        ['identity_secret.created', 'tenant'],
      ]);
      expect(JSON.stringify(audit)).not.toContain(second.slice(6));
    });
  });

  describe('settings: identityVerification', () => {
    it('refuses required without a secret (400 on the field), keeps configured read-only, and a deleted secret resets required', async () => {
      expectError(await api('patch', '/api/v1/settings').send({ identityVerification: { required: true } }), 400, 'VALIDATION_ERROR', [
        { field: 'identityVerification.required', message: expect.any(String) },
      ]);
      expectError(await api('patch', '/api/v1/settings').send({ identityVerification: { configured: true } }), 400, 'VALIDATION_ERROR', [
        { field: 'identityVerification.configured', message: 'is not an allowed field' },
      ]);
      expectError(await api('patch', '/api/v1/settings').send({ identityVerification: { required: 'yes' } }), 400, 'VALIDATION_ERROR', [
        { field: 'identityVerification.required', message: 'must be true or false' },
      ]);
      await newSecret();
      const patched = await api('patch', '/api/v1/settings')
        .send({ identityVerification: { required: true } })
        .expect(200);
      expect(patched.body.settings.identityVerification).toEqual({ configured: true, required: true });
      await dashboard.delete('/api/v1/identity-secret').expect(204);
      expect((await settings()).identityVerification).toEqual({ configured: false, required: false });
    });
  });

  describe('widget sessions with an identity token', () => {
    let secret: string;
    beforeAll(async () => {
      secret = await newSecret();
    });

    it('refuses every token that is not a valid HS256 JWT of the secret with 401 INVALID_IDENTITY_TOKEN', async () => {
      const now = nowS();
      const bad: [string, string | Promise<string>][] = [
        ['another secret', sign(`${secret}x`)],
        ['HS512 with the secret', sign(secret, {}, 'HS512')],
        ['alg none', unsigned({ sub: 'user-1', iat: now, exp: now + HOUR_S })],
        ['no exp', sign(secret, { exp: undefined })],
        ['no iat', sign(secret, { iat: undefined })],
        ['no sub', sign(secret, { sub: undefined })],
        ['past exp', sign(secret, { iat: now - 2 * HOUR_S, exp: now - 60 })],
        ['exp more than 24 h after iat', sign(secret, { exp: now + 24 * HOUR_S + 60 })],
        ['iat in the future', sign(secret, { iat: now + HOUR_S, exp: now + 2 * HOUR_S })],
        ['empty sub', sign(secret, { sub: '' })],
        ['sub of 201 characters', sign(secret, { sub: 'x'.repeat(201) })],
        ['numeric sub', sign(secret, { sub: 42 })],
        ['invalid email', sign(secret, { email: 'not-an-email' })],
        ['name of 201 characters', sign(secret, { name: 'n'.repeat(201) })],
        ['malformed', 'not.a.jwt'],
        ['garbage', 'x'],
      ];
      for (const [what, token] of bad) {
        const response = await session({ identityToken: await token });
        try {
          expectError(response, 401, 'INVALID_IDENTITY_TOKEN');
        } catch (error) {
          throw new Error(`${what}: ${(error as Error).message}`);
        }
      }
      expect(await t.prisma.visitor.count({ where: { tenantId: owner.tenantId } })).toBe(0);
      expectError(await session({ identityToken: 'x'.repeat(4097) }), 400, 'VALIDATION_ERROR', [{ field: 'identityToken', message: expect.any(String) }]);
      await identified(await sign(secret, { sub: 'x'.repeat(200), iat: now, exp: now + 24 * HOUR_S }));
    });

    it('makes the user the same visitor on every device, with its conversations, e-mail and name (verified)', async () => {
      const anonymous = (await session({}).expect(201)).body;
      // Device A: an earlier anonymous token is not kept once the visitor is identified.
      const deviceA = await identified(await sign(secret, { sub: 'customer-7', email: 'ada@example.com', name: 'Ada' }), {
        visitorToken: anonymous.visitorToken,
      });
      expect(deviceA.visitorId).not.toBe(anonymous.visitorId);
      const started = await startConversation(deviceA.visitorToken);
      expect(started.visitor).toEqual({ id: deviceA.visitorId, externalId: 'customer-7', email: 'ada@example.com', name: 'Ada', verified: true });

      // Device B: no shared visitor token, a token of its own for the same user (no e-mail: the kept one stays).
      const deviceB = await identified(await sign(secret, { sub: 'customer-7', name: 'Ada L.' }));
      expect(deviceB.visitorId).toBe(deviceA.visitorId);
      await t
        .http()
        .get(`/api/v1/widget/conversations/${started.id}/messages`)
        .set('X-API-Key', publicKey)
        .set('X-Visitor-Token', deviceB.visitorToken)
        .expect(200);
      const seen = (await api('get', `/api/v1/conversations/${started.id}`).expect(200)).body.conversation;
      expect(seen.visitorId).toBe(deviceA.visitorId);
      expect(seen.visitor).toEqual({ id: deviceA.visitorId, externalId: 'customer-7', email: 'ada@example.com', name: 'Ada L.', verified: true });
      const second = await startConversation(deviceB.visitorToken);
      expect(second.visitor).toEqual(seen.visitor);

      // Another user is another visitor; an anonymous one stays unverified.
      expect((await identified(await sign(secret, { sub: 'customer-8' }))).visitorId).not.toBe(deviceA.visitorId);
      expect((await startConversation(anonymous.visitorToken)).visitor).toEqual({
        id: anonymous.visitorId,
        externalId: null,
        email: null,
        name: null,
        verified: false,
      });
    });

    it('lists a user’s conversations with ?externalId=, combined with the other filters', async () => {
      const visitor = await identified(await sign(secret, { sub: 'filter-user' }));
      const first = await startConversation(visitor.visitorToken);
      const other = await identified(await sign(secret, { sub: 'filter-user' }), {}).then(async () => {
        const onOtherBot = (await session({ identityToken: await sign(secret, { sub: 'filter-user' }) }, otherBotId).expect(201)).body;
        return startConversation(onOtherBot.visitorToken);
      });
      await startConversation((await identified(await sign(secret, { sub: 'someone-else' }))).visitorToken);
      const list = async (query: string) =>
        ((await api('get', `/api/v1/conversations?${query}`).expect(200)).body.conversations as { id: string }[]).map((conversation) => conversation.id);
      expect(await list('externalId=filter-user')).toEqual([other.id, first.id]);
      expect(await list(`externalId=filter-user&botId=${otherBotId}`)).toEqual([other.id]);
      expect(await list('externalId=filter-user&status=ended')).toEqual([]);
      expect(await list('externalId=never-seen')).toEqual([]);
      expect((await api('get', '/api/v1/conversations?externalId=never-seen').expect(200)).body.pagination).toMatchObject({ total: 0 });
      expectError(await api('get', '/api/v1/conversations?externalId='), 400, 'VALIDATION_ERROR', [{ field: 'externalId', message: expect.any(String) }]);
      expectError(await api('get', `/api/v1/conversations?externalId=${'x'.repeat(201)}`), 400, 'VALIDATION_ERROR', [
        { field: 'externalId', message: expect.any(String) },
      ]);
    });

    it('refuses a token of the replaced secret right after a new one is made, and every token once the secret is deleted', async () => {
      const old = await sign(secret);
      await identified(old);
      secret = await newSecret();
      expectError(await session({ identityToken: old }), 401, 'INVALID_IDENTITY_TOKEN');
      await identified(await sign(secret));

      await api('patch', '/api/v1/settings')
        .send({ identityVerification: { required: true } })
        .expect(200);
      const current = await sign(secret);
      await dashboard.delete('/api/v1/identity-secret').expect(204);
      expectError(await session({ identityToken: current }), 401, 'INVALID_IDENTITY_TOKEN');
      // Required went with the secret: anonymous sessions work again.
      await session({}).expect(201);
      expect((await settings()).identityVerification).toEqual({ configured: false, required: false });
      secret = await newSecret();
    });

    it('with required: a session without a token is 401 IDENTITY_REQUIRED, with a valid one 201', async () => {
      await api('patch', '/api/v1/settings')
        .send({ identityVerification: { required: true } })
        .expect(200);
      try {
        expectError(await session({}), 401, 'IDENTITY_REQUIRED');
        const anonymous = (await session({}).expect(401)).body;
        expect(anonymous.error.code).toBe('IDENTITY_REQUIRED');
        expectError(await session({ identityToken: await sign(`${secret}-wrong`) }), 401, 'INVALID_IDENTITY_TOKEN');
        await identified(await sign(secret));
      } finally {
        await api('patch', '/api/v1/settings')
          .send({ identityVerification: { required: false } })
          .expect(200);
      }
      await session({}).expect(201);
    });

    it('exports and erases a user by externalId: its conversations and its Visitor row go', async () => {
      const device = await identified(await sign(secret, { sub: 'erase-me', email: 'erase-me@example.com', name: 'Eve Rase' }));
      const conversation = await startConversation(device.visitorToken);
      const kept = await startConversation((await identified(await sign(secret, { sub: 'keep-me' }))).visitorToken);

      const exported = (await api('post', '/api/v1/privacy/exports').send({ externalId: 'erase-me' }).expect(200)).body;
      expect(exported.conversations.map((entry: { id: string; visitor: unknown }) => [entry.id, entry.visitor])).toEqual([
        [conversation.id, conversation.visitor],
      ]);
      expect((await api('post', '/api/v1/privacy/exports').send({ externalId: 'nobody' }).expect(200)).body).toEqual({ leads: [], conversations: [] });
      expectError(await api('post', '/api/v1/privacy/exports').send({ externalId: 'erase-me', email: 'erase-me@example.com' }), 400, 'VALIDATION_ERROR', [
        { field: 'externalId', message: expect.any(String) },
      ]);
      expectError(await api('post', '/api/v1/privacy/erasures').send({ externalId: 'erase-me', visitorId: device.visitorId }), 400, 'VALIDATION_ERROR', [
        { field: 'externalId', message: expect.any(String) },
      ]);
      expectError(await api('post', '/api/v1/privacy/exports').send({ externalId: '' }), 400, 'VALIDATION_ERROR', [
        { field: 'externalId', message: expect.any(String) },
      ]);

      const erasure = (await api('post', '/api/v1/privacy/erasures').send({ externalId: 'erase-me' }).expect(202)).body.erasure;
      expect(erasure).toMatchObject({ status: 'pending', counts: { conversations: 1 } });
      const deadline = Date.now() + 10_000;
      while ((await api('get', `/api/v1/privacy/erasures/${erasure.id}`).expect(200)).body.erasure.status !== 'completed') {
        if (Date.now() > deadline) throw new Error('the erasure did not complete within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await api('get', `/api/v1/conversations/${conversation.id}`).expect(404);
      await api('get', `/api/v1/conversations/${kept.id}`).expect(200);
      expect(
        await t.prisma.visitor.findMany({ where: { tenantId: owner.tenantId, externalId: { in: ['erase-me', 'keep-me'] } }, select: { externalId: true } }),
      ).toEqual([{ externalId: 'keep-me' }]);
      // The user signing in again is a new visitor, with nothing of before.
      const again = await identified(await sign(secret, { sub: 'erase-me' }));
      expect(again.visitorId).not.toBe(device.visitorId);
    });
  });
});

describe('Known visitors across instances', () => {
  let a: TestApp;
  let b: TestApp;
  const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

  beforeAll(async () => {
    a = await createTestApp(redis);
    b = await createTestApp(redis, { connection: a.connection });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  it('a secret replaced on one instance refuses the old tokens on the other at once (Redis), or within the settings cache’s second', async () => {
    const owner = await signUp(a);
    const publicKey = (await createKey(a, owner.tenantId, { type: 'public' })).key;
    const botId = (await createBot(a, owner.tenantId)).id;
    const secretOn = async (app: TestApp) =>
      (await asUser(app, owner.cookie, owner.tenantId).post('/api/v1/identity-secret').expect(201)).body.secret as string;
    const now = Math.floor(Date.now() / 1000);
    const tokenOf = (secret: string) =>
      new SignJWT({ sub: 'multi-1', iat: now, exp: now + 600 }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
    const sessionOnB = async (identityToken: string) => b.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId, identityToken });

    const old = await tokenOf(await secretOn(a));
    expect((await sessionOnB(old)).status).toBe(201); // B has the settings cached now
    await secretOn(a);
    const replaced = Date.now();
    let refusedAfter: number | undefined;
    while (Date.now() - replaced < 1_500) {
      const sentAfter = Date.now() - replaced;
      const response = await sessionOnB(old);
      if (response.status === 401) {
        expectError(response, 401, 'INVALID_IDENTITY_TOKEN');
        refusedAfter = sentAfter;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(refusedAfter).toBeDefined();
    expect(refusedAfter!).toBeLessThanOrEqual(process.env.REDIS_URL ? 250 : 1_000);
  });
});
