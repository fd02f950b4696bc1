import { createHmac, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { expectError, ISO_MS as ISO, UUID } from '../support/assertions';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createTenant, TestTenant } from '../support/factories';

const SECRET_KEY = /^svc_sk_[0-9A-Za-z]{33}$/;
const PUBLIC_KEY = /^svc_pk_[0-9A-Za-z]{33}$/;
/** The pepper createTestApp configures; used to prove that no digest leaks into answers. */
const E2E_PEPPER = 'e2e-pepper-0123456789abcdef';
import { ALL_SCOPES } from '../../src/common/access/scopes';
const MISSING_UUID = '00000000-0000-4000-8000-000000000000';

const digestOf = (key: string) => createHmac('sha256', E2E_PEPPER).update(key).digest('hex');
const newSlug = () => `s-${randomUUID().slice(0, 13)}`;

function expectValidation(response: Response, details: { field: string; message: string }[]): void {
  expectError(response, 400, 'VALIDATION_ERROR', details);
}

/** Waits for a condition that the service reaches off the request path (lastUsedAt). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Admin API (/admin/v1)', () => {
  let t: TestApp;
  /** A business tenant (25 bots) with an all-scope key, for the bot, document and conversation rows. */
  let main: TestTenant;
  /** Another tenant, for isolation checks. */
  let other: TestTenant;
  let otherBotId: string;

  beforeAll(async () => {
    t = await createTestApp();
    main = await createTenant(t, { plan: 'business' });
    other = await createTenant(t, { plan: 'business' });
    otherBotId = (await createBot(t, other.id, { name: 'Other tenant bot' })).id;
  });
  afterAll(() => t.close());

  const apiBot = async (key: string, botId: string) => {
    const response = await t.http().get(`/api/v1/bots/${botId}`).set('X-API-Key', key).expect(200);
    return response.body.bot as Record<string, unknown>;
  };

  describe('POST /admin/v1/tenants', () => {
    it('creates a tenant: 201 with id, name, slug, plan and timestamps', async () => {
      const slug = newSlug();
      const before = Date.now();
      const response = await t.admin().post('/admin/v1/tenants').send({ name: 'Acme Corp', slug, plan: 'pro' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        tenant: {
          id: expect.stringMatching(UUID),
          name: 'Acme Corp',
          slug,
          plan: 'pro',
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      });
      expect(Date.parse(response.body.tenant.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(response.body.tenant.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

      const fetched = await t.admin().get(`/admin/v1/tenants/${response.body.tenant.id}`).expect(200);
      expect(fetched.body).toEqual(response.body);
    });

    it.each(['free', 'pro', 'business', 'enterprise'])('accepts the plan %s', async (plan) => {
      const response = await t
        .admin()
        .post('/admin/v1/tenants')
        .send({ name: `Plan ${plan}`, slug: newSlug(), plan });
      expect(response.status).toBe(201);
      expect(response.body.tenant.plan).toBe(plan);
    });

    it('trims the name', async () => {
      const response = await t.admin().post('/admin/v1/tenants').send({ name: '  Trimmed Inc  ', slug: newSlug(), plan: 'pro' }).expect(201);
      expect(response.body.tenant.name).toBe('Trimmed Inc');
    });

    it('accepts a slug of 63 characters', async () => {
      const slug = `a${randomUUID().replace(/-/g, '')}`.padEnd(63, 'x');
      const response = await t.admin().post('/admin/v1/tenants').send({ name: 'Long slug', slug, plan: 'pro' });
      expect(response.status).toBe(201);
      expect(response.body.tenant.slug).toBe(slug);
    });

    it('answers 409 CONFLICT for a slug that is taken, and creates nothing', async () => {
      const slug = newSlug();
      await t.admin().post('/admin/v1/tenants').send({ name: 'First', slug, plan: 'pro' }).expect(201);
      const response = await t.admin().post('/admin/v1/tenants').send({ name: 'Second', slug, plan: 'business' });
      expectError(response, 409, 'CONFLICT');
      expect(await t.prisma.tenant.count({ where: { slug } })).toBe(1);
    });

    it.each([
      ['uppercase letters', 'Acme'],
      ['spaces', 'acme corp'],
      ['an underscore', 'acme_corp'],
      ['a leading hyphen', '-acme'],
      ['a double hyphen', 'acme--corp'],
      ['an empty string', ''],
    ])('rejects a slug with %s: 400 with a detail on slug', async (_, slug) => {
      const response = await t.admin().post('/admin/v1/tenants').send({ name: 'Bad slug', slug, plan: 'pro' });
      expectValidation(response, [{ field: 'slug', message: 'must be lowercase letters, digits and single hyphens' }]);
    });

    it('rejects a slug of 64 characters', async () => {
      const response = await t
        .admin()
        .post('/admin/v1/tenants')
        .send({ name: 'Bad slug', slug: 'a'.repeat(64), plan: 'pro' });
      expectValidation(response, [{ field: 'slug', message: 'must be at most 63 characters' }]);
    });

    it('rejects a missing name, a blank name and a name of 201 characters', async () => {
      for (const [name, message] of [
        [undefined, 'must be a string'],
        ['   ', 'must be 1 to 200 characters'],
        ['n'.repeat(201), 'must be 1 to 200 characters'],
      ]) {
        const response = await t.admin().post('/admin/v1/tenants').send({ name, slug: newSlug(), plan: 'pro' });
        expectValidation(response, [{ field: 'name', message: message as string }]);
      }
    });

    it('rejects a plan outside free|pro|business|enterprise, naming the allowed values', async () => {
      for (const plan of ['platinum', 'Pro', '', undefined, 2]) {
        const response = await t.admin().post('/admin/v1/tenants').send({ name: 'Bad plan', slug: newSlug(), plan });
        expectValidation(response, [{ field: 'plan', message: 'must be one of free, pro, business, enterprise' }]);
      }
    });

    it('rejects unknown fields', async () => {
      const response = await t.admin().post('/admin/v1/tenants').send({ name: 'Extra', slug: newSlug(), plan: 'pro', id: randomUUID(), apiAccess: true });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual(
        expect.arrayContaining([
          { field: 'id', message: 'is not an allowed field' },
          { field: 'apiAccess', message: 'is not an allowed field' },
        ]),
      );
      expect(response.body.error.details).toHaveLength(2);
    });

    it('lists every broken field and never echoes the submitted values', async () => {
      const response = await t
        .admin()
        .post('/admin/v1/tenants')
        .send({ name: 'x'.repeat(201), slug: 'Secret Slug VALUE', plan: 'gold-PLAN-VALUE' });
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['name', 'plan', 'slug']);
      expect(response.text).not.toContain('Secret Slug VALUE');
      expect(response.text).not.toContain('gold-PLAN-VALUE');
    });

    it('answers 415 for a body that is not JSON and 400 for malformed JSON', async () => {
      const text = await t.admin().post('/admin/v1/tenants').set('Content-Type', 'text/plain').send('name=x');
      expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const malformed = await t.admin().post('/admin/v1/tenants').set('Content-Type', 'application/json').send('{"name":');
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
    });
  });

  describe('GET /admin/v1/tenants/:tenantId', () => {
    it('answers 404 for an unknown and a malformed tenant id', async () => {
      expectError(await t.admin().get(`/admin/v1/tenants/${MISSING_UUID}`), 404, 'NOT_FOUND');
      expectError(await t.admin().get('/admin/v1/tenants/not-a-uuid'), 404, 'NOT_FOUND');
    });
  });

  describe('PATCH /admin/v1/tenants/:tenantId', () => {
    let tenant: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'pro' });
    });

    it('changes the plan: 200 with the tenant, and /verify reports the new plan at once', async () => {
      const response = await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'business' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        tenant: {
          id: tenant.id,
          name: tenant.name,
          slug: tenant.slug,
          plan: 'business',
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      });
      expect(Date.parse(response.body.tenant.updatedAt)).toBeGreaterThanOrEqual(Date.parse(response.body.tenant.createdAt));
      const verify = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
      expect(verify.body.plan).toEqual({ name: 'business', botsLimit: 25, messagesLimit: 50000 });
    });

    it('renames the tenant and keeps its plan', async () => {
      const response = await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ name: '  Renamed Ltd ' });
      expect(response.status).toBe(200);
      expect(response.body.tenant).toEqual({
        id: tenant.id,
        name: 'Renamed Ltd',
        slug: tenant.slug,
        plan: 'business',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      const fetched = await t.admin().get(`/admin/v1/tenants/${tenant.id}`).expect(200);
      expect(fetched.body.tenant.name).toBe('Renamed Ltd');
    });

    it('a downgrade to free shuts the tenant out of /api/v1 with 403 PLAN_UPGRADE_REQUIRED', async () => {
      const downgraded = await createTenant(t, { plan: 'pro' });
      await t.admin().patch(`/admin/v1/tenants/${downgraded.id}`).send({ plan: 'free' }).expect(200);
      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', downgraded.key), 403, 'PLAN_UPGRADE_REQUIRED');
    });

    it('answers 404 for an unknown tenant and a malformed id', async () => {
      expectError(await t.admin().patch(`/admin/v1/tenants/${MISSING_UUID}`).send({ plan: 'pro' }), 404, 'NOT_FOUND');
      expectError(await t.admin().patch('/admin/v1/tenants/123').send({ plan: 'pro' }), 404, 'NOT_FOUND');
    });

    it('rejects an invalid plan, a blank name and unknown fields with 400, changing nothing', async () => {
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'gold' }), [
        { field: 'plan', message: 'must be one of free, pro, business, enterprise' },
      ]);
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ name: '  ' }), [
        { field: 'name', message: 'must be 1 to 200 characters' },
      ]);
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ slug: 'new-slug' }), [
        { field: 'slug', message: 'is not an allowed field' },
      ]);
      const fetched = await t.admin().get(`/admin/v1/tenants/${tenant.id}`).expect(200);
      expect(fetched.body.tenant).toMatchObject({ slug: tenant.slug, plan: 'business', name: 'Renamed Ltd' });
    });
  });

  describe('POST /admin/v1/tenants/:tenantId/api-keys', () => {
    it('creates a secret key: 201 with the key once and its listing form without the key or a digest', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/api-keys`)
        .send({ name: 'Production CRM', scopes: ['leads:read', 'leads:write'] });
      expect(response.status).toBe(201);
      const key: string = response.body.key;
      expect(key).toMatch(SECRET_KEY);
      expect(response.body).toEqual({
        key,
        apiKey: {
          id: expect.stringMatching(UUID),
          name: 'Production CRM',
          type: 'secret',
          scopes: ['leads:read', 'leads:write'],
          prefix: 'svc_sk_',
          last4: key.slice(-4),
          expiresAt: null,
          lastUsedAt: null,
          createdAt: expect.stringMatching(ISO),
          createdBy: { type: 'admin-api' },
        },
      });
      expect(JSON.stringify(response.body.apiKey)).not.toContain(key);
      expect(response.text).not.toContain(digestOf(key));

      const verify = await t.http().get('/api/v1/verify').set('X-API-Key', key);
      expect(verify.status).toBe(200);
      expect(verify.body.tenant.id).toBe(main.id);
    });

    it('stores only the HMAC digest of the key, never the key', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/api-keys`)
        .send({ name: 'Stored form', scopes: ['bots:read'] })
        .expect(201);
      const row = await t.prisma.apiKey.findUniqueOrThrow({ where: { id: response.body.apiKey.id } });
      expect(row.digest).toBe(digestOf(response.body.key));
      expect(JSON.stringify(row)).not.toContain(response.body.key);
    });

    it('creates a public key with the svc_pk_ prefix that can verify itself', async () => {
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'Widget', scopes: [], type: 'public' });
      expect(response.status).toBe(201);
      expect(response.body.key).toMatch(PUBLIC_KEY);
      expect(response.body.apiKey).toMatchObject({ type: 'public', prefix: 'svc_pk_', scopes: [], last4: response.body.key.slice(-4) });
      await t.http().get('/api/v1/verify').set('X-API-Key', response.body.key).expect(200);
    });

    it('accepts every scope of SPEC 5.3 and an expiry in the future, answered in UTC', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/api-keys`)
        .send({ name: 'All scopes', scopes: ALL_SCOPES, expiresAt: '2099-01-02T03:04:05+02:00' });
      expect(response.status).toBe(201);
      expect(response.body.apiKey.scopes).toEqual(ALL_SCOPES);
      expect(response.body.apiKey.expiresAt).toBe('2099-01-02T01:04:05.000Z');
    });

    it('gives every key a different value', async () => {
      const keys = await Promise.all(
        [1, 2, 3].map(
          async (n) =>
            (
              await t
                .admin()
                .post(`/admin/v1/tenants/${main.id}/api-keys`)
                .send({ name: `Key ${n}`, scopes: ['bots:read'] })
                .expect(201)
            ).body.key,
        ),
      );
      expect(new Set(keys).size).toBe(3);
    });

    it('rejects scopes outside SPEC 5.3', async () => {
      for (const scopes of [['bots:write'], ['bots:read', 'admin'], ['BOTS:READ'], [42]]) {
        const response = await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'Bad scope', scopes });
        expectValidation(response, [{ field: 'scopes', message: `each entry must be one of ${ALL_SCOPES.join(', ')}` }]);
      }
    });

    it('rejects scopes that are not an array, or missing', async () => {
      for (const scopes of ['bots:read', { 0: 'bots:read' }, null, undefined]) {
        const response = await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'Bad scopes', scopes });
        expectValidation(response, [{ field: 'scopes', message: 'must be an array of scopes' }]);
        // A secret key, named so, needs them too; a public key only when it sends something that is not an array.
        const secret = await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'Bad scopes', scopes, type: 'secret' });
        expectValidation(secret, [{ field: 'scopes', message: 'must be an array of scopes' }]);
        if (scopes !== undefined) {
          const publicKey = await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'Bad scopes', scopes, type: 'public' });
          expectValidation(publicKey, [{ field: 'scopes', message: 'must be an array of scopes' }]);
        }
      }
    });

    it('creates a public key without scopes (a public key takes none: leaving them out is the normal call)', async () => {
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'Widget', type: 'public' });
      expect(response.status).toBe(201);
      expect(response.body.key).toMatch(PUBLIC_KEY);
      expect(response.body.apiKey).toMatchObject({ type: 'public', prefix: 'svc_pk_', scopes: [] });
      await t.http().get('/api/v1/verify').set('X-API-Key', response.body.key).expect(200);
    });

    it('refuses scopes on a public key, naming scopes, and creates nothing', async () => {
      const before = (await t.admin().get(`/admin/v1/tenants/${main.id}/api-keys`).expect(200)).body.apiKeys.length;
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/api-keys`)
        .send({ name: 'Widget', scopes: ['bots:read'], type: 'public' });
      expectValidation(response, [{ field: 'scopes', message: 'must be empty for a public key (it may call only verify and the widget endpoints)' }]);
      expect((await t.admin().get(`/admin/v1/tenants/${main.id}/api-keys`).expect(200)).body.apiKeys).toHaveLength(before);
    });

    it('rejects an expiry in the past', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/api-keys`)
        .send({ name: 'Expired', scopes: ['bots:read'], expiresAt: new Date(Date.now() - 60_000).toISOString() });
      expectValidation(response, [{ field: 'expiresAt', message: 'must be in the future' }]);
    });

    it('rejects an expiry that is not an ISO 8601 date-time', async () => {
      for (const expiresAt of ['next week', '2099-13-40T00:00:00Z', '01/02/2099', 4102444800000, '']) {
        const response = await t
          .admin()
          .post(`/admin/v1/tenants/${main.id}/api-keys`)
          .send({ name: 'Bad expiry', scopes: ['bots:read'], expiresAt });
        expectValidation(response, [{ field: 'expiresAt', message: 'must be an ISO 8601 date-time with a time zone' }]);
      }
    });

    it('rejects an impossible calendar date (2099-02-30) as expiresAt', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/api-keys`)
        .send({ name: 'Feb 30', scopes: ['bots:read'], expiresAt: '2099-02-30T00:00:00Z' });
      expectValidation(response, [{ field: 'expiresAt', message: 'must be an ISO 8601 date-time with a time zone' }]);
    });

    it('rejects a missing name, an unknown type and unknown fields', async () => {
      expectValidation(
        await t
          .admin()
          .post(`/admin/v1/tenants/${main.id}/api-keys`)
          .send({ scopes: ['bots:read'] }),
        [{ field: 'name', message: 'must be a string' }],
      );
      expectValidation(await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'x', scopes: [], type: 'restricted' }), [
        { field: 'type', message: 'must be secret or public' },
      ]);
      expectValidation(await t.admin().post(`/admin/v1/tenants/${main.id}/api-keys`).send({ name: 'x', scopes: [], key: 'svc_sk_chosen' }), [
        { field: 'key', message: 'is not an allowed field' },
      ]);
    });

    it('answers 403 PLAN_UPGRADE_REQUIRED for a tenant on Free, and creates nothing', async () => {
      const created = await t.admin().post('/admin/v1/tenants').send({ name: 'Free Co', slug: newSlug(), plan: 'free' }).expect(201);
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${created.body.tenant.id}/api-keys`)
        .send({ name: 'Nope', scopes: ['bots:read'] });
      expectError(response, 403, 'PLAN_UPGRADE_REQUIRED');
      const list = await t.admin().get(`/admin/v1/tenants/${created.body.tenant.id}/api-keys`).expect(200);
      expect(list.body).toEqual({ apiKeys: [] });
    });

    it('answers 404 for an unknown and a malformed tenant id', async () => {
      expectError(
        await t
          .admin()
          .post(`/admin/v1/tenants/${MISSING_UUID}/api-keys`)
          .send({ name: 'x', scopes: ['bots:read'] }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await t
          .admin()
          .post('/admin/v1/tenants/nope/api-keys')
          .send({ name: 'x', scopes: ['bots:read'] }),
        404,
        'NOT_FOUND',
      );
    });
  });

  describe('GET /admin/v1/tenants/:tenantId/api-keys', () => {
    let tenant: TestTenant;
    let keyA: { id: string; key: string };
    let keyB: { id: string; key: string };

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'pro', scopes: ['bots:read'] });
      const a = await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/api-keys`)
        .send({ name: 'Key A', scopes: ['leads:read'], expiresAt: '2099-06-01T00:00:00.000Z' })
        .expect(201);
      const b = await t.admin().post(`/admin/v1/tenants/${tenant.id}/api-keys`).send({ name: 'Key B', scopes: [], type: 'public' }).expect(201);
      keyA = { id: a.body.apiKey.id, key: a.body.key };
      keyB = { id: b.body.apiKey.id, key: b.body.key };
    });

    it("lists the tenant's keys, oldest first, without any key or digest", async () => {
      const response = await t.admin().get(`/admin/v1/tenants/${tenant.id}/api-keys`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        apiKeys: [
          {
            id: tenant.keyId,
            name: 'test key',
            type: 'secret',
            scopes: ['bots:read'],
            prefix: 'svc_sk_',
            last4: tenant.key.slice(-4),
            expiresAt: null,
            lastUsedAt: null,
            createdAt: expect.stringMatching(ISO),
            createdBy: { type: 'admin-api' },
          },
          {
            id: keyA.id,
            name: 'Key A',
            type: 'secret',
            scopes: ['leads:read'],
            prefix: 'svc_sk_',
            last4: keyA.key.slice(-4),
            expiresAt: '2099-06-01T00:00:00.000Z',
            lastUsedAt: null,
            createdAt: expect.stringMatching(ISO),
            createdBy: { type: 'admin-api' },
          },
          {
            id: keyB.id,
            name: 'Key B',
            type: 'public',
            scopes: [],
            prefix: 'svc_pk_',
            last4: keyB.key.slice(-4),
            expiresAt: null,
            lastUsedAt: null,
            createdAt: expect.stringMatching(ISO),
            createdBy: { type: 'admin-api' },
          },
        ],
      });
      for (const key of [tenant.key, keyA.key, keyB.key]) {
        expect(response.text).not.toContain(key);
        expect(response.text).not.toContain(key.slice(7));
        expect(response.text).not.toContain(digestOf(key));
      }
    });

    it("does not list another tenant's keys", async () => {
      const response = await t.admin().get(`/admin/v1/tenants/${other.id}/api-keys`).expect(200);
      const ids = response.body.apiKeys.map((key: { id: string }) => key.id);
      expect(ids).toContain(other.keyId);
      expect(ids).not.toContain(keyA.id);
      expect(ids).not.toContain(tenant.keyId);
    });

    it('sets lastUsedAt once the key has been used', async () => {
      const fresh = await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/api-keys`)
        .send({ name: 'Used key', scopes: ['bots:read'] })
        .expect(201);
      const before = Date.now();
      await t.http().get('/api/v1/verify').set('X-API-Key', fresh.body.key).expect(200);
      const listed = await eventually(
        async () =>
          (await t.admin().get(`/admin/v1/tenants/${tenant.id}/api-keys`).expect(200)).body.apiKeys.find(
            (key: { id: string }) => key.id === fresh.body.apiKey.id,
          ),
        (key: { lastUsedAt: string | null }) => key.lastUsedAt !== null,
      );
      expect(listed.lastUsedAt).toMatch(ISO);
      expect(Date.parse(String(listed.lastUsedAt))).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(String(listed.lastUsedAt))).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('no longer lists a deleted key', async () => {
      const doomed = await t
        .admin()
        .post(`/admin/v1/tenants/${tenant.id}/api-keys`)
        .send({ name: 'Doomed', scopes: ['bots:read'] })
        .expect(201);
      await t.admin().delete(`/admin/v1/tenants/${tenant.id}/api-keys/${doomed.body.apiKey.id}`).expect(204);
      const response = await t.admin().get(`/admin/v1/tenants/${tenant.id}/api-keys`).expect(200);
      expect(response.body.apiKeys.map((key: { id: string }) => key.id)).not.toContain(doomed.body.apiKey.id);
      expect(response.body.apiKeys.map((key: { id: string }) => key.id)).toEqual(expect.arrayContaining([tenant.keyId, keyA.id, keyB.id]));
    });

    it('answers 404 for an unknown and a malformed tenant id', async () => {
      expectError(await t.admin().get(`/admin/v1/tenants/${MISSING_UUID}/api-keys`), 404, 'NOT_FOUND');
      expectError(await t.admin().get('/admin/v1/tenants/xyz/api-keys'), 404, 'NOT_FOUND');
    });
  });

  describe('DELETE /admin/v1/tenants/:tenantId/api-keys/:keyId', () => {
    it('answers 204 with an empty body; the key is refused with 401 right away; a second delete is 404', async () => {
      const tenant = await createTenant(t, { plan: 'pro' });
      await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);

      const response = await t.admin().delete(`/admin/v1/tenants/${tenant.id}/api-keys/${tenant.keyId}`);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');

      expectError(await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key), 401, 'INVALID_API_KEY');
      expectError(await t.http().get('/api/v1/bots').set('X-API-Key', tenant.key), 401, 'INVALID_API_KEY');
      expectError(await t.admin().delete(`/admin/v1/tenants/${tenant.id}/api-keys/${tenant.keyId}`), 404, 'NOT_FOUND');
    });

    it('answers 404 for a malformed key id and an unknown key id', async () => {
      expectError(await t.admin().delete(`/admin/v1/tenants/${main.id}/api-keys/not-a-key`), 404, 'NOT_FOUND');
      expectError(await t.admin().delete(`/admin/v1/tenants/${main.id}/api-keys/${MISSING_UUID}`), 404, 'NOT_FOUND');
    });

    it("answers 404 for another tenant's key and leaves that key working", async () => {
      const victim = await createTenant(t, { plan: 'pro' });
      expectError(await t.admin().delete(`/admin/v1/tenants/${main.id}/api-keys/${victim.keyId}`), 404, 'NOT_FOUND');
      await t.http().get('/api/v1/verify').set('X-API-Key', victim.key).expect(200);
    });

    it('answers 404 for an unknown tenant', async () => {
      expectError(await t.admin().delete(`/admin/v1/tenants/${MISSING_UUID}/api-keys/${main.keyId}`), 404, 'NOT_FOUND');
      await t.http().get('/api/v1/verify').set('X-API-Key', main.key).expect(200);
    });
  });

  describe('POST /admin/v1/tenants/:tenantId/bots', () => {
    it('creates a bot with the defaults', async () => {
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/bots`).send({ name: '  Support Bot ' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        bot: {
          id: expect.stringMatching(UUID),
          name: 'Support Bot',
          isActive: true,
          avatarUrl: null,
          primaryColor: '#2563eb',
          language: 'en',
          messageCount: 0,
          conversationCount: 0,
          knowledgeBaseSize: 0,
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      });
      expect(await apiBot(main.key, response.body.bot.id)).toEqual(response.body.bot);
    });

    it('creates a bot with every setting given', async () => {
      const body = { name: 'Sales Bot', primaryColor: '#FF00aa', language: 'de', avatarUrl: 'https://cdn.example.com/a.png', isActive: false };
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/bots`).send(body);
      expect(response.status).toBe(201);
      expect(response.body.bot).toEqual({
        ...body,
        id: expect.stringMatching(UUID),
        messageCount: 0,
        conversationCount: 0,
        knowledgeBaseSize: 0,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      const list = await t.http().get('/api/v1/bots').set('X-API-Key', main.key).expect(200);
      expect(list.body.bots).toContainEqual(response.body.bot);
    });

    it.each([
      ['primaryColor', 'blue', 'must be a hex colour such as #2563eb'],
      ['primaryColor', '#12345', 'must be a hex colour such as #2563eb'],
      ['primaryColor', '2563eb', 'must be a hex colour such as #2563eb'],
      ['primaryColor', '#gggggg', 'must be a hex colour such as #2563eb'],
      ['language', 'EN', 'must be an ISO 639-1 code such as en'],
      ['language', 'eng', 'must be an ISO 639-1 code such as en'],
      ['language', 'e', 'must be an ISO 639-1 code such as en'],
      ['avatarUrl', 'http://cdn.example.com/a.png', 'must be an https URL'],
      ['avatarUrl', 'not a url', 'must be an https URL'],
      ['avatarUrl', 'javascript:alert(1)', 'must be an https URL'],
      ['name', '', 'must be 1 to 100 characters'],
      ['name', '    ', 'must be 1 to 100 characters'],
      ['name', 'n'.repeat(101), 'must be 1 to 100 characters'],
      ['isActive', 'yes', 'must be true or false'],
    ])('rejects %s = %j with 400', async (field, value, message) => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots`)
        .send({ name: 'Valid name', [field]: value });
      expectValidation(response, [{ field, message }]);
    });

    it('accepts a name of exactly 100 characters', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots`)
        .send({ name: 'n'.repeat(100) });
      expect(response.status).toBe(201);
      expect(response.body.bot.name).toBe('n'.repeat(100));
    });

    it('rejects a missing name and unknown fields', async () => {
      expectValidation(await t.admin().post(`/admin/v1/tenants/${main.id}/bots`).send({}), [{ field: 'name', message: 'must be a string' }]);
      expectValidation(await t.admin().post(`/admin/v1/tenants/${main.id}/bots`).send({ name: 'x', messageCount: 10 }), [
        { field: 'messageCount', message: 'is not an allowed field' },
      ]);
    });

    it('enforces botsLimit: a pro tenant creates 5 bots and the 6th is 403 PLAN_LIMIT_REACHED', async () => {
      const created = await t.admin().post('/admin/v1/tenants').send({ name: 'Pro limits', slug: newSlug(), plan: 'pro' }).expect(201);
      const tenantId = created.body.tenant.id;
      for (let n = 1; n <= 5; n++) {
        await t
          .admin()
          .post(`/admin/v1/tenants/${tenantId}/bots`)
          .send({ name: `Bot ${n}` })
          .expect(201);
      }
      expectError(await t.admin().post(`/admin/v1/tenants/${tenantId}/bots`).send({ name: 'Bot 6' }), 403, 'PLAN_LIMIT_REACHED');
      expect(await t.prisma.bot.count({ where: { tenantId } })).toBe(5);

      await t.admin().patch(`/admin/v1/tenants/${tenantId}`).send({ plan: 'business' }).expect(200);
      await t.admin().post(`/admin/v1/tenants/${tenantId}/bots`).send({ name: 'Bot 6' }).expect(201);
    });

    it('enforces botsLimit under concurrent creates', async () => {
      for (let round = 0; round < 3; round++) {
        const created = await t.admin().post('/admin/v1/tenants').send({ name: 'Race', slug: newSlug(), plan: 'pro' }).expect(201);
        const tenantId = created.body.tenant.id;
        const statuses = await Promise.all(
          Array.from({ length: 10 }, (_, n) =>
            t
              .admin()
              .post(`/admin/v1/tenants/${tenantId}/bots`)
              .send({ name: `Bot ${n}` })
              .then((response) => response.status),
          ),
        );
        expect(statuses.filter((status) => status === 201)).toHaveLength(5);
        expect(statuses.filter((status) => status === 403)).toHaveLength(5);
        expect(await t.prisma.bot.count({ where: { tenantId } })).toBe(5);
      }
    });

    it('enforces botsLimit on free: the 2nd bot is 403 PLAN_LIMIT_REACHED', async () => {
      const created = await t.admin().post('/admin/v1/tenants').send({ name: 'Free limits', slug: newSlug(), plan: 'free' }).expect(201);
      await t.admin().post(`/admin/v1/tenants/${created.body.tenant.id}/bots`).send({ name: 'Only bot' }).expect(201);
      expectError(await t.admin().post(`/admin/v1/tenants/${created.body.tenant.id}/bots`).send({ name: 'Second bot' }), 403, 'PLAN_LIMIT_REACHED');
    });

    it('answers 404 for an unknown and a malformed tenant id', async () => {
      expectError(await t.admin().post(`/admin/v1/tenants/${MISSING_UUID}/bots`).send({ name: 'x' }), 404, 'NOT_FOUND');
      expectError(await t.admin().post('/admin/v1/tenants/1/bots').send({ name: 'x' }), 404, 'NOT_FOUND');
    });
  });

  describe('PATCH /admin/v1/tenants/:tenantId/bots/:botId', () => {
    let botId: string;

    beforeAll(async () => {
      botId = (await createBot(t, main.id, { name: 'Toggle bot' })).id;
    });

    it('deactivates and reactivates the bot (SPEC 3.1); the API still returns it while inactive', async () => {
      const off = await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ isActive: false });
      expect(off.status).toBe(200);
      expect(off.body).toEqual({
        bot: {
          id: botId,
          name: 'Toggle bot',
          isActive: false,
          avatarUrl: null,
          primaryColor: '#2563eb',
          language: 'en',
          messageCount: 0,
          conversationCount: 0,
          knowledgeBaseSize: 0,
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      });
      expect(await apiBot(main.key, botId)).toEqual(off.body.bot);
      const list = await t.http().get('/api/v1/bots').set('X-API-Key', main.key).expect(200);
      expect(list.body.bots).toContainEqual(off.body.bot);

      const on = await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ isActive: true }).expect(200);
      expect(on.body.bot.isActive).toBe(true);
      expect((await apiBot(main.key, botId)).isActive).toBe(true);
    });

    it('changes the settings and leaves the others as they were', async () => {
      const response = await t
        .admin()
        .patch(`/admin/v1/tenants/${main.id}/bots/${botId}`)
        .send({ name: 'Renamed bot', primaryColor: '#000', language: 'fr', avatarUrl: 'https://img.example.org/bot.svg' });
      expect(response.status).toBe(200);
      expect(response.body.bot).toMatchObject({
        id: botId,
        name: 'Renamed bot',
        primaryColor: '#000',
        language: 'fr',
        avatarUrl: 'https://img.example.org/bot.svg',
        isActive: true,
      });
      expect(Date.parse(response.body.bot.updatedAt)).toBeGreaterThanOrEqual(Date.parse(response.body.bot.createdAt));

      const cleared = await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ avatarUrl: null }).expect(200);
      expect(cleared.body.bot).toMatchObject({ name: 'Renamed bot', avatarUrl: null, language: 'fr' });
      expect(await apiBot(main.key, botId)).toEqual(cleared.body.bot);
    });

    it('rejects invalid settings with 400 and changes nothing', async () => {
      const before = await apiBot(main.key, botId);
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ isActive: 'false' }), [
        { field: 'isActive', message: 'must be true or false' },
      ]);
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ primaryColor: 'red' }), [
        { field: 'primaryColor', message: 'must be a hex colour such as #2563eb' },
      ]);
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ name: '' }), [
        { field: 'name', message: 'must be 1 to 100 characters' },
      ]);
      expectValidation(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${botId}`).send({ conversationCount: 3 }), [
        { field: 'conversationCount', message: 'is not an allowed field' },
      ]);
      expect(await apiBot(main.key, botId)).toEqual(before);
    });

    it('answers 404 for an unknown bot, a malformed bot id and an unknown tenant', async () => {
      expectError(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${MISSING_UUID}`).send({ isActive: false }), 404, 'NOT_FOUND');
      expectError(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/bot-1`).send({ isActive: false }), 404, 'NOT_FOUND');
      expectError(await t.admin().patch(`/admin/v1/tenants/${MISSING_UUID}/bots/${botId}`).send({ isActive: false }), 404, 'NOT_FOUND');
    });

    it("answers 404 for another tenant's bot and leaves it unchanged", async () => {
      expectError(await t.admin().patch(`/admin/v1/tenants/${main.id}/bots/${otherBotId}`).send({ isActive: false, name: 'Hijacked' }), 404, 'NOT_FOUND');
      expect(await apiBot(other.key, otherBotId)).toMatchObject({ name: 'Other tenant bot', isActive: true });
    });
  });

  describe('POST /admin/v1/tenants/:tenantId/bots/:botId/documents', () => {
    let botId: string;

    beforeAll(async () => {
      botId = (await createBot(t, main.id, { name: 'Knowledge bot' })).id;
    });

    it("creates a document (201) and grows the bot's knowledgeBaseSize", async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/documents`)
        .send({ title: '  Refund policy ', content: 'Refunds within 30 days.' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        document: {
          id: expect.stringMatching(UUID),
          title: 'Refund policy',
          characters: 23,
          content: 'Refunds within 30 days.',
          createdAt: expect.stringMatching(ISO),
          updatedAt: response.body.document.createdAt,
        },
      });
      expect((await apiBot(main.key, botId)).knowledgeBaseSize).toBe(1);

      await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/documents`).send({ title: 'Shipping', content: 'We ship worldwide.' }).expect(201);
      expect((await apiBot(main.key, botId)).knowledgeBaseSize).toBe(2);
    });

    it('rejects invalid titles and contents with 400 and stores nothing', async () => {
      const before = (await apiBot(main.key, botId)).knowledgeBaseSize;
      const cases: [Record<string, unknown>, string, string][] = [
        [{ content: 'text' }, 'title', 'must be a string'],
        [{ title: '', content: 'text' }, 'title', 'must be 1 to 200 characters'],
        [{ title: '   ', content: 'text' }, 'title', 'must be 1 to 200 characters'],
        [{ title: 't'.repeat(201), content: 'text' }, 'title', 'must be 1 to 200 characters'],
        [{ title: 42, content: 'text' }, 'title', 'must be a string'],
        [{ title: 'Title' }, 'content', 'must be a string'],
        [{ title: 'Title', content: '' }, 'content', 'must be 1 to 200000 characters'],
        [{ title: 'Title', content: ['a'] }, 'content', 'must be a string'],
      ];
      for (const [body, field, message] of cases) {
        expectValidation(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/documents`).send(body), [{ field, message }]);
      }
      expectValidation(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/documents`).send({ title: 'x', content: 'y', url: 'https://x' }), [
        { field: 'url', message: 'is not an allowed field' },
      ]);
      expect((await apiBot(main.key, botId)).knowledgeBaseSize).toBe(before);
    });

    it('accepts a title of exactly 200 characters', async () => {
      await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/documents`)
        .send({ title: 't'.repeat(200), content: 'text' })
        .expect(201);
    });

    it("answers 404 for an unknown bot, a malformed bot id and another tenant's bot", async () => {
      expectError(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${MISSING_UUID}/documents`).send({ title: 'x', content: 'y' }), 404, 'NOT_FOUND');
      expectError(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/zzz/documents`).send({ title: 'x', content: 'y' }), 404, 'NOT_FOUND');
      expectError(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${otherBotId}/documents`).send({ title: 'x', content: 'y' }), 404, 'NOT_FOUND');
      expect((await apiBot(other.key, otherBotId)).knowledgeBaseSize).toBe(0);
    });
  });

  describe('POST /admin/v1/tenants/:tenantId/bots/:botId/conversations', () => {
    let botId: string;

    beforeAll(async () => {
      botId = (await createBot(t, main.id, { name: 'Chat bot' })).id;
    });

    const counts = async () => {
      const bot = await apiBot(main.key, botId);
      const conversations = await t.http().get(`/api/v1/conversations?botId=${botId}`).set('X-API-Key', main.key).expect(200);
      const leads = await t.http().get(`/api/v1/leads?botId=${botId}`).set('X-API-Key', main.key).expect(200);
      return {
        conversationCount: Number(bot.conversationCount),
        messageCount: Number(bot.messageCount),
        conversations: conversations.body.pagination.total,
        leads: leads.body.pagination.total,
      };
    };

    it('records a conversation with its messages (201) and counts them on the bot', async () => {
      const before = await counts();
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`)
        .send({
          visitorId: 'visitor-42',
          createdAt: '2026-03-01T10:00:00.000Z',
          status: 'ended',
          messages: [
            { role: 'user', content: 'Hello', createdAt: '2026-03-01T10:00:01.000Z' },
            { role: 'assistant', content: 'Hi there', createdAt: '2026-03-01T10:00:02.000Z' },
            { role: 'agent', content: 'A human here', createdAt: '2026-03-01T10:05:00.000Z' },
          ],
        });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        conversation: {
          id: expect.stringMatching(UUID),
          botId,
          status: 'ended',
          channel: 'widget',
          visitorId: 'visitor-42',
          visitor: { id: 'visitor-42', externalId: null, email: null, name: null, verified: false },
          leadId: null,
          messageCount: 3,
          lastMessageAt: '2026-03-01T10:05:00.000Z',
          endedAt: '2026-03-01T10:05:00.000Z',
          handedOffAt: null,
          assigneeId: null,
          waitingSince: null,
          createdAt: '2026-03-01T10:00:00.000Z',
          updatedAt: expect.stringMatching(ISO),
        },
      });
      const conversationId = response.body.conversation.id;

      const messages = await t.http().get(`/api/v1/conversations/${conversationId}/messages`).set('X-API-Key', main.key).expect(200);
      expect(messages.body).toEqual({
        messages: [
          { id: expect.stringMatching(UUID), conversationId, role: 'user', content: 'Hello', createdAt: '2026-03-01T10:00:01.000Z' },
          { id: expect.stringMatching(UUID), conversationId, role: 'assistant', content: 'Hi there', createdAt: '2026-03-01T10:00:02.000Z' },
          { id: expect.stringMatching(UUID), conversationId, role: 'agent', content: 'A human here', createdAt: '2026-03-01T10:05:00.000Z' },
        ],
        pagination: { total: 3, limit: 50, offset: 0, hasMore: false },
      });
      const fetched = await t.http().get(`/api/v1/conversations/${conversationId}`).set('X-API-Key', main.key).expect(200);
      expect(fetched.body).toEqual(response.body);

      const after = await counts();
      expect(after).toEqual({
        ...before,
        conversationCount: before.conversationCount + 1,
        messageCount: before.messageCount + 3,
        conversations: before.conversations + 1,
      });
    });

    it('applies the defaults: status active, channel widget, no visitor, no end', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`)
        .send({ messages: [{ role: 'user', content: 'Hi' }] });
      expect(response.status).toBe(201);
      expect(response.body.conversation).toMatchObject({
        botId,
        status: 'active',
        channel: 'widget',
        visitorId: null,
        leadId: null,
        messageCount: 1,
        endedAt: null,
      });
      expect(response.body.conversation.lastMessageAt).toMatch(ISO);
    });

    it('stores a lead given with the conversation, with source widget and this conversationId', async () => {
      const email = `visitor-${randomUUID().slice(0, 8)}@example.com`;
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`)
        .send({
          messages: [
            { role: 'user', content: 'I want a quote' },
            { role: 'assistant', content: 'Sure, your e-mail?' },
          ],
          lead: { name: ' Jane Visitor ', email, phone: '+1 555 0100', company: 'Visitor GmbH', message: 'Quote please' },
        });
      expect(response.status).toBe(201);
      const conversation = response.body.conversation;
      expect(conversation.leadId).toMatch(UUID);

      const leads = await t
        .http()
        .get(`/api/v1/leads?search=${encodeURIComponent(email)}`)
        .set('X-API-Key', main.key)
        .expect(200);
      expect(leads.body.leads).toEqual([
        {
          id: conversation.leadId,
          name: 'Jane Visitor',
          email,
          phone: '+1 555 0100',
          company: 'Visitor GmbH',
          message: 'Quote please',
          botId,
          conversationId: conversation.id,
          source: 'widget',
          status: 'new',
          tags: [],
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      ]);
      const stranger = await createTenant(t, { plan: 'pro' });
      const strangerLeads = await t
        .http()
        .get(`/api/v1/leads?search=${encodeURIComponent(email)}`)
        .set('X-API-Key', stranger.key)
        .expect(200);
      expect(strangerLeads.body.leads).toEqual([]);
    });

    it.each([
      ['an invalid message role', { messages: [{ role: 'system', content: 'x' }] }, 'messages[0].role', 'must be one of user, assistant, agent'],
      [
        'an empty message content',
        {
          messages: [
            { role: 'user', content: 'ok' },
            { role: 'assistant', content: '' },
          ],
        },
        'messages[1].content',
        'must not be empty',
      ],
      [
        'an invalid message createdAt',
        { messages: [{ role: 'user', content: 'x', createdAt: 'yesterday' }] },
        'messages[0].createdAt',
        'must be an ISO 8601 date-time with a time zone',
      ],
      [
        'an invalid conversation createdAt',
        { createdAt: 'last tuesday', messages: [{ role: 'user', content: 'x' }] },
        'createdAt',
        'must be an ISO 8601 date-time with a time zone',
      ],
      [
        'a conversation createdAt with month 13',
        { createdAt: '2026-13-01T10:00:00Z', messages: [{ role: 'user', content: 'x' }] },
        'createdAt',
        'must be an ISO 8601 date-time with a time zone',
      ],
      [
        'a date-time without a time zone',
        { createdAt: '2026-02-01T10:00:00', messages: [{ role: 'user', content: 'x' }] },
        'createdAt',
        'must be an ISO 8601 date-time with a time zone',
      ],
      ['an invalid status', { status: 'open', messages: [] }, 'status', 'must be one of active, ended, handed_off'],
      ['an invalid channel', { channel: 'email', messages: [] }, 'channel', 'must be one of widget, api'],
      [
        'a lead with an invalid e-mail',
        { messages: [{ role: 'user', content: 'x' }], lead: { name: 'Jane', email: 'not-an-email' } },
        'lead.email',
        'must be a valid e-mail address',
      ],
      ['an unknown field in a message', { messages: [{ role: 'user', content: 'x', sentiment: 'happy' }] }, 'messages[0].sentiment', 'is not an allowed field'],
    ])('rejects %s with 400 and stores nothing', async (_, body, field, message) => {
      const before = await counts();
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`).send(body);
      expectValidation(response, [{ field, message }]);
      expect(await counts()).toEqual(before);
    });

    it('rejects a message content that is not a string with 400 naming the broken rule', async () => {
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`)
        .send({ messages: [{ role: 'user', content: 7 }] });
      expectValidation(response, [{ field: 'messages[0].content', message: 'must be a string' }]);
    });

    it('rejects messages that are not an array with 400 naming the broken rule', async () => {
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`).send({ messages: 'hello' });
      expectValidation(response, [{ field: 'messages', message: 'must be an array of messages' }]);
    });

    it('rejects a content that is not a string and messages that are not an array with 400, storing nothing', async () => {
      const before = await counts();
      for (const [body, field] of [
        [{ messages: [{ role: 'user', content: 7 }] }, 'messages[0].content'],
        [{ messages: 'hello' }, 'messages'],
      ] as const) {
        const response = await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`).send(body);
        expect(response.status).toBe(400);
        expect(response.body.error).toEqual({
          code: 'VALIDATION_ERROR',
          message: expect.any(String),
          status: 400,
          requestId: expect.any(String),
          details: [{ field, message: expect.any(String) }],
        });
      }
      expect(await counts()).toEqual(before);
    });

    it('rejects an impossible calendar date (2026-02-30) as createdAt with 400 and stores nothing', async () => {
      const before = await counts();
      const response = await t
        .admin()
        .post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`)
        .send({ createdAt: '2026-02-30T10:00:00Z', messages: [{ role: 'user', content: 'x' }] });
      expectValidation(response, [{ field: 'createdAt', message: 'must be an ISO 8601 date-time with a time zone' }]);
      expect(await counts()).toEqual(before);
    });

    it('rejects a missing messages array', async () => {
      const response = await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${botId}/conversations`).send({ visitorId: 'v' });
      expectValidation(response, [{ field: 'messages', message: 'must be an array of messages' }]);
    });

    it("answers 404 for an unknown bot, a malformed bot id and another tenant's bot, and stores nothing", async () => {
      const body = { messages: [{ role: 'user', content: 'x' }] };
      expectError(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${MISSING_UUID}/conversations`).send(body), 404, 'NOT_FOUND');
      expectError(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/abc/conversations`).send(body), 404, 'NOT_FOUND');
      expectError(await t.admin().post(`/admin/v1/tenants/${main.id}/bots/${otherBotId}/conversations`).send(body), 404, 'NOT_FOUND');
      expectError(await t.admin().post(`/admin/v1/tenants/${MISSING_UUID}/bots/${botId}/conversations`).send(body), 404, 'NOT_FOUND');
      expect((await apiBot(other.key, otherBotId)).conversationCount).toBe(0);
    });
  });

  describe('GET /admin/v1/tenants/:tenantId/audit-log', () => {
    let tenantId: string;
    let keyId: string;
    let key: string;
    let botId: string;

    beforeAll(async () => {
      const created = await t.admin().post('/admin/v1/tenants').send({ name: 'Audited', slug: newSlug(), plan: 'pro' }).expect(201);
      tenantId = created.body.tenant.id;
      const keyResponse = await t
        .admin()
        .post(`/admin/v1/tenants/${tenantId}/api-keys`)
        .send({ name: 'Audited key', scopes: ['bots:read'] })
        .expect(201);
      keyId = keyResponse.body.apiKey.id;
      key = keyResponse.body.key;
      await t.admin().patch(`/admin/v1/tenants/${tenantId}`).send({ plan: 'business' }).expect(200);
      botId = (await t.admin().post(`/admin/v1/tenants/${tenantId}/bots`).send({ name: 'Audited bot' }).expect(201)).body.bot.id;
      await t.admin().patch(`/admin/v1/tenants/${tenantId}/bots/${botId}`).send({ isActive: false }).expect(200);
      await t.admin().patch(`/admin/v1/tenants/${tenantId}/bots/${botId}`).send({ isActive: true }).expect(200);
      await t.admin().delete(`/admin/v1/tenants/${tenantId}/api-keys/${keyId}`).expect(204);
    });

    it('answers the events newest first, each with actor, action, target and time', async () => {
      const response = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log`);
      expect(response.status).toBe(200);
      const event = (action: string, targetType: string, targetId: string, data: unknown) => ({
        id: expect.stringMatching(UUID),
        actor: 'admin-api',
        requestId: expect.any(String),
        ip: expect.any(String),
        action,
        targetType,
        targetId,
        data,
        createdAt: expect.stringMatching(ISO),
      });
      expect(response.body).toEqual({
        events: [
          event('api_key.deleted', 'api_key', keyId, expect.anything()),
          event('bot.activated', 'bot', botId, expect.anything()),
          event('bot.deactivated', 'bot', botId, expect.anything()),
          event('bot.created', 'bot', botId, expect.anything()),
          event('tenant.plan_changed', 'tenant', tenantId, { from: 'pro', to: 'business' }),
          event('api_key.created', 'api_key', keyId, expect.anything()),
          event('tenant.created', 'tenant', tenantId, expect.anything()),
        ],
        pagination: { total: 7, limit: 20, offset: 0, hasMore: false },
      });
      for (const { actor } of response.body.events) expect(actor.length).toBeGreaterThan(0);
      const times = response.body.events.map((e: { createdAt: string }) => Date.parse(e.createdAt));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('records the id of the request that made each change', async () => {
      const requestId = `audit-${Date.now()}`;
      await t
        .admin()
        .patch(`/admin/v1/tenants/${other.id}`)
        .set('X-Request-Id', requestId)
        .send({ name: `Renamed ${requestId}` })
        .expect(200);
      const [latest] = (await t.admin().get(`/admin/v1/tenants/${other.id}/audit-log?limit=1`).expect(200)).body.events;
      expect(latest).toMatchObject({ actor: 'admin-api', requestId, action: 'tenant.renamed', targetType: 'tenant', targetId: other.id });
    });

    it('never contains a key or its digest', async () => {
      const response = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log`).expect(200);
      expect(response.text).not.toContain(key);
      expect(response.text).not.toContain(key.slice(7));
      expect(response.text).not.toContain(digestOf(key));
    });

    it('pages with limit and offset', async () => {
      const all = (await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log`).expect(200)).body.events;
      const page = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log?limit=2&offset=1`).expect(200);
      expect(page.body).toEqual({ events: all.slice(1, 3), pagination: { total: 7, limit: 2, offset: 1, hasMore: true } });
      const last = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log?limit=5&offset=5`).expect(200);
      expect(last.body).toEqual({ events: all.slice(5), pagination: { total: 7, limit: 5, offset: 5, hasMore: false } });
      const beyond = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log?offset=100`).expect(200);
      expect(beyond.body).toEqual({ events: [], pagination: { total: 7, limit: 20, offset: 100, hasMore: false } });
    });

    it.each([
      ['limit=0', 'limit', 'must be at least 1'],
      ['limit=101', 'limit', 'must be at most 100'],
      ['page=2', 'page', 'is not an allowed field'],
    ])('rejects ?%s with 400', async (query, field, message) => {
      const response = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log?${query}`);
      expectValidation(response, [{ field, message }]);
    });

    it.each(['limit=abc', 'limit=1.5', 'limit=-1', 'limit=', 'offset=-1', 'offset=x', 'offset=1e3'])(
      'rejects ?%s with 400 and a detail on that parameter',
      async (query) => {
        const response = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log?${query}`);
        expectValidation(response, [{ field: query.split('=')[0], message: expect.any(String) }]);
      },
    );

    it.each([
      ['limit=abc', 'limit', /^must be an integer$/],
      ['limit=1.5', 'limit', /^must be an integer$/],
      ['limit=-1', 'limit', /^must be (an integer|at least 1)$/],
      ['offset=-1', 'offset', /^must be (an integer|0 or more)$/],
      ['offset=x', 'offset', /^must be an integer$/],
    ])('names the broken rule for ?%s', async (query, field, message) => {
      const response = await t.admin().get(`/admin/v1/tenants/${tenantId}/audit-log?${query}`);
      expectValidation(response, [{ field, message: expect.stringMatching(message) as unknown as string }]);
    });

    it("lists only the tenant's own events", async () => {
      const response = await t.admin().get(`/admin/v1/tenants/${other.id}/audit-log?limit=100`).expect(200);
      const targets = response.body.events.map((e: { targetId: string }) => e.targetId);
      expect(targets).toContain(other.id);
      expect(targets).not.toContain(tenantId);
      expect(targets).not.toContain(keyId);
      expect(targets).not.toContain(botId);
    });

    it('answers 404 for an unknown and a malformed tenant id', async () => {
      expectError(await t.admin().get(`/admin/v1/tenants/${MISSING_UUID}/audit-log`), 404, 'NOT_FOUND');
      expectError(await t.admin().get('/admin/v1/tenants/audit/audit-log'), 404, 'NOT_FOUND');
    });
  });

  describe('admin authentication', () => {
    let botId: string;

    beforeAll(async () => {
      botId = (await createBot(t, main.id, { name: 'Auth bot' })).id;
    });

    const routes = (): [string, string, Record<string, unknown> | undefined][] => [
      ['post', '/admin/v1/tenants', { name: 'Sneaky', slug: newSlug(), plan: 'enterprise' }],
      ['get', `/admin/v1/tenants/${main.id}`, undefined],
      ['patch', `/admin/v1/tenants/${main.id}`, { plan: 'free' }],
      ['post', `/admin/v1/tenants/${main.id}/api-keys`, { name: 'Sneaky', scopes: ['bots:read'] }],
      ['get', `/admin/v1/tenants/${main.id}/api-keys`, undefined],
      ['delete', `/admin/v1/tenants/${main.id}/api-keys/${main.keyId}`, undefined],
      ['post', `/admin/v1/tenants/${main.id}/bots`, { name: 'Sneaky' }],
      ['patch', `/admin/v1/tenants/${main.id}/bots/${botId}`, { isActive: false }],
      ['post', `/admin/v1/tenants/${main.id}/bots/${botId}/documents`, { title: 'x', content: 'y' }],
      ['post', `/admin/v1/tenants/${main.id}/bots/${botId}/conversations`, { messages: [{ role: 'user', content: 'x' }] }],
      ['get', `/admin/v1/tenants/${main.id}/audit-log`, undefined],
    ];

    const send = (method: string, url: string, body: Record<string, unknown> | undefined, authorization?: string) => {
      const http = t.http() as unknown as Record<string, (url: string) => import('supertest').Test>;
      const test = http[method](url);
      if (authorization !== undefined) test.set('Authorization', authorization);
      return body ? test.send(body) : test;
    };

    it.each([
      ['no Authorization header', undefined],
      ['a wrong token', 'Bearer not-the-admin-token-at-all'],
      ['the token with a different scheme', `Basic ${ADMIN_TOKEN}`],
      ['the token without a scheme', ADMIN_TOKEN],
      ['a prefix of the token', `Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
      ['the token with extra characters', `Bearer ${ADMIN_TOKEN}x`],
      ['an empty bearer', 'Bearer '],
    ])('answers 401 UNAUTHORIZED on every admin route with %s', async (_, authorization) => {
      for (const [method, url, body] of routes()) {
        const response = await send(method, url, body, authorization);
        expect({ method, url, status: response.status }).toEqual({ method, url, status: 401 });
        expectError(response, 401, 'UNAUTHORIZED');
      }
    });

    it('does not accept an API key in place of the admin token', async () => {
      const response = await t.http().get(`/admin/v1/tenants/${main.id}/api-keys`).set('X-API-Key', main.key);
      expectError(response, 401, 'UNAUTHORIZED');
      const asBearer = await t.http().get(`/admin/v1/tenants/${main.id}/api-keys`).set('Authorization', `Bearer ${main.key}`);
      expectError(asBearer, 401, 'UNAUTHORIZED');
    });

    it('checks the token before the path id and the body', async () => {
      expectError(await t.http().get('/admin/v1/tenants/not-a-uuid/api-keys'), 401, 'UNAUTHORIZED');
      expectError(await t.http().post('/admin/v1/tenants').send({ slug: 'BAD SLUG' }), 401, 'UNAUTHORIZED');
      expectError(await t.http().post('/admin/v1/tenants').set('Content-Type', 'text/plain').send('x'), 401, 'UNAUTHORIZED');
    });

    it('changes nothing when refused', async () => {
      await t.http().get('/api/v1/verify').set('X-API-Key', main.key).expect(200);
      expect((await apiBot(main.key, botId)).isActive).toBe(true);
      const tenant = await t.admin().get(`/admin/v1/tenants/${main.id}`).expect(200);
      expect(tenant.body.tenant.plan).toBe('business');
      const keys = await t.admin().get(`/admin/v1/tenants/${main.id}/api-keys`).expect(200);
      expect(keys.body.apiKeys.map((k: { name: string }) => k.name)).not.toContain('Sneaky');
    });
  });
});
