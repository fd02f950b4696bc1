import type { Response, Test } from 'supertest';
import { expectError, UUID } from '../support/assertions';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, TestTenant } from '../support/factories';

function expectSecurityHeaders(response: Response): void {
  expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  expect(Number(/max-age=(\d+)/.exec(response.headers['strict-transport-security'])![1])).toBeGreaterThan(0);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['x-powered-by']).toBeUndefined();
}

/** The same app, with every request (admin factories included) sent as if through an HTTPS load balancer. */
function overHttps(t: TestApp): TestApp {
  const https = (test: Test) => test.set('X-Forwarded-Proto', 'https');
  return {
    ...t,
    admin: () => ({
      get: (url) => https(t.admin().get(url)),
      post: (url) => https(t.admin().post(url)),
      patch: (url) => https(t.admin().patch(url)),
      delete: (url) => https(t.admin().delete(url)),
    }),
  };
}

describe('Transport', () => {
  describe('production mode behind a trusted proxy', () => {
    let t: TestApp;
    let tenant: TestTenant;

    beforeAll(async () => {
      t = await createTestApp({ NODE_ENV: 'production', TRUST_PROXY: 'loopback' });
      tenant = await createTenant(overHttps(t));
    });
    afterAll(() => t.close());

    it('rejects plain HTTP without X-Forwarded-Proto with 403 HTTPS_REQUIRED, before the key is looked at', async () => {
      const response = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
      expectError(response, 403, 'HTTPS_REQUIRED');
      expectSecurityHeaders(response);
      expectError(await t.http().get('/api/v1/verify'), 403, 'HTTPS_REQUIRED');
    });

    it('rejects X-Forwarded-Proto: http with 403 HTTPS_REQUIRED', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'http').set('X-API-Key', tenant.key), 403, 'HTTPS_REQUIRED');
      expectError(await t.http().get('/api/v1/bots').set('X-Forwarded-Proto', 'http').set('X-API-Key', tenant.key), 403, 'HTTPS_REQUIRED');
    });

    it('rejects plain HTTP before the body is read', async () => {
      const response = await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).set('Content-Type', 'text/plain').send('not json');
      expectError(response, 403, 'HTTPS_REQUIRED');
    });

    it('handles X-Forwarded-Proto: https normally: 401 without a key, 200 with one', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'https'), 401, 'INVALID_API_KEY');
      const response = await t.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'https').set('X-API-Key', tenant.key);
      expect({ status: response.status, body: response.body }).toEqual({
        status: 200,
        body: {
          valid: true,
          tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug },
          plan: { name: 'pro', botsLimit: 5, messagesLimit: 10000 },
          usage: { messagesThisMonth: 0 },
        },
      });
      expectSecurityHeaders(response);
    });

    it.each(['/nope', '/api/v1/unknown', '/api/v2/bots', '/api/v1/verify/extra', '/admin/v1/nope'])(
      'rejects the unknown route %s over plain HTTP with 403 HTTPS_REQUIRED, and answers 404 over HTTPS',
      async (path) => {
        expectError(await t.http().get(path), 403, 'HTTPS_REQUIRED');
        expectError(await t.http().get(path).set('X-Forwarded-Proto', 'https'), 404, 'NOT_FOUND');
      },
    );

    it('rejects the root path / over plain HTTP with 403 HTTPS_REQUIRED', async () => {
      expectError(await t.http().get('/'), 403, 'HTTPS_REQUIRED');
      expectError(await t.http().post('/').send({}), 403, 'HTTPS_REQUIRED');
    });

    it('applies the rule to the admin API too', async () => {
      expectError(await t.http().get(`/admin/v1/tenants/${tenant.id}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`), 403, 'HTTPS_REQUIRED');
      const response = await overHttps(t).admin().get(`/admin/v1/tenants/${tenant.id}`);
      expect(response.status).toBe(200);
      expect(response.body.tenant.id).toBe(tenant.id);
    });
  });

  describe('production mode without a trusted proxy', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ NODE_ENV: 'production' });
    });
    afterAll(() => t.close());

    it('ignores X-Forwarded-Proto: https from an untrusted peer', async () => {
      expectError(await t.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'https'), 403, 'HTTPS_REQUIRED');
      expectError(await t.http().get('/api/v1/verify'), 403, 'HTTPS_REQUIRED');
    });

    it('answers HEAD /health/live and /health/ready over plain HTTP like GET (200, no body)', async () => {
      const get = await t.http().get('/health/live');
      expect({ status: get.status, body: get.body }).toEqual({ status: 200, body: { status: 'ok' } });
      for (const path of ['/health/live', '/health/ready']) {
        const head = await t.http().head(path);
        expect(head.status).toBe(200);
        expect(head.text ?? '').toBe('');
      }
    });

    it.each(['post', 'put', 'delete', 'patch'] as const)('still refuses %s to a health path over plain HTTP with 403 HTTPS_REQUIRED', async (method) => {
      expectError(await t.http()[method]('/health/live'), 403, 'HTTPS_REQUIRED');
      expectError(await t.http()[method]('/health/ready'), 403, 'HTTPS_REQUIRED');
    });
  });

  describe('development mode', () => {
    let t: TestApp;
    let proxied: TestApp;
    let tenant: TestTenant;
    let proxiedTenant: TestTenant;

    beforeAll(async () => {
      t = await createTestApp();
      proxied = await createTestApp({ TRUST_PROXY: 'loopback' });
      tenant = await createTenant(t);
      proxiedTenant = await createTenant(proxied);
    });
    afterAll(async () => {
      await t.close();
      await proxied.close();
    });

    it('accepts plain HTTP from loopback', async () => {
      const response = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
      expect({ status: response.status, tenant: response.body.tenant?.id }).toEqual({ status: 200, tenant: tenant.id });
    });

    it('ignores X-Forwarded-Proto from a peer that is not a trusted proxy', async () => {
      const response = await t.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'http').set('X-API-Key', tenant.key);
      expect(response.status).toBe(200);
    });

    it("rejects a trusted proxy's X-Forwarded-Proto: http with 403 HTTPS_REQUIRED", async () => {
      expectError(await proxied.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'http').set('X-API-Key', proxiedTenant.key), 403, 'HTTPS_REQUIRED');
      expectError(await proxied.http().get('/nope').set('X-Forwarded-Proto', 'http'), 403, 'HTTPS_REQUIRED');
    });

    it("accepts a trusted proxy's X-Forwarded-Proto: https and plain loopback HTTP", async () => {
      expect((await proxied.http().get('/api/v1/verify').set('X-Forwarded-Proto', 'https').set('X-API-Key', proxiedTenant.key)).status).toBe(200);
      expect((await proxied.http().get('/api/v1/verify').set('X-API-Key', proxiedTenant.key)).status).toBe(200);
    });

    describe('X-Request-Id', () => {
      it('is generated as a UUID when absent, on success and on errors, and differs per request', async () => {
        const ok = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
        expect(ok.status).toBe(200);
        expect(ok.headers['x-request-id']).toMatch(UUID);
        const failed = await t.http().get('/api/v1/verify');
        expectError(failed, 401, 'INVALID_API_KEY');
        expect(failed.headers['x-request-id']).toMatch(UUID);
        expect(failed.headers['x-request-id']).not.toBe(ok.headers['x-request-id']);
      });

      it.each(['req-12345_abc.def:ghi', 'a', 'A'.repeat(128), '3f0e1d9c-5b1a-4c8e-9a4f-2b7d6e0c1a22'])('echoes a valid incoming id (%s)', async (id) => {
        const failed = await t.http().get('/api/v1/verify').set('X-Request-Id', id);
        expect(failed.headers['x-request-id']).toBe(id);
        expectError(failed, 401, 'INVALID_API_KEY');
        expect(failed.body.error.requestId).toBe(id);
        const ok = await t.http().get('/api/v1/verify').set('X-Request-Id', id).set('X-API-Key', tenant.key);
        expect({ status: ok.status, id: ok.headers['x-request-id'] }).toEqual({ status: 200, id });
      });

      it.each([
        ['300 characters', 'a'.repeat(300)],
        ['spaces', 'my request id'],
        ['a quote and angle brackets', '"><script>'],
      ])('replaces an invalid incoming id (%s) with a generated UUID', async (_what, id) => {
        const response = await t.http().get('/api/v1/verify').set('X-Request-Id', id);
        expectError(response, 401, 'INVALID_API_KEY');
        expect(response.headers['x-request-id']).toMatch(UUID);
        expect(response.body.error.requestId).toBe(response.headers['x-request-id']);
      });

      it('is set on 404s for unknown routes', async () => {
        const response = await t.http().get('/nope').set('X-Request-Id', 'trace-404');
        expectError(response, 404, 'NOT_FOUND');
        expect(response.body.error.requestId).toBe('trace-404');
      });
    });

    describe('security headers', () => {
      it('are set on a success', async () => {
        const response = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
        expect(response.status).toBe(200);
        expectSecurityHeaders(response);
      });

      it('are set on a 401, a 404, a 415 and an admin 401', async () => {
        const unauthenticated = await t.http().get('/api/v1/bots');
        expectError(unauthenticated, 401, 'INVALID_API_KEY');
        expectSecurityHeaders(unauthenticated);
        const missing = await t.http().get('/api/v1/unknown');
        expectError(missing, 404, 'NOT_FOUND');
        expectSecurityHeaders(missing);
        const media = await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).set('Content-Type', 'text/plain').send('x');
        expectError(media, 415, 'UNSUPPORTED_MEDIA_TYPE');
        expectSecurityHeaders(media);
        const admin = await t.http().get(`/admin/v1/tenants/${tenant.id}`);
        expectError(admin, 401, 'UNAUTHORIZED');
        expectSecurityHeaders(admin);
      });

      it('are set on the admin API success', async () => {
        const response = await t.admin().get(`/admin/v1/tenants/${tenant.id}`);
        expect(response.status).toBe(200);
        expectSecurityHeaders(response);
      });
    });

    describe('unknown routes and methods', () => {
      it.each([
        ['GET', '/nope'],
        ['GET', '/'],
        ['GET', '/api/v1/unknown'],
        ['GET', '/api/v2/bots'],
        ['GET', '/api/v1'],
        ['POST', '/nope'],
        ['DELETE', '/api/v1/bots'],
        ['PUT', '/api/v1/leads'],
        ['DELETE', '/api/v1/leads'],
        ['POST', '/api/v1/verify'],
        ['PUT', '/admin/v1/tenants'],
      ])('%s %s answers 404 NOT_FOUND in the JSON envelope', async (method, path) => {
        const response = await t.http()[method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](path).set('Accept', 'text/html');
        expectError(response, 404, 'NOT_FOUND');
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.text).not.toMatch(/<html|<pre|<!DOCTYPE|Cannot (GET|POST|PUT|DELETE)/i);
      });

      it('answers 404 for a wrong method even with a valid key', async () => {
        for (const [method, path] of [
          ['delete', '/api/v1/bots'],
          ['put', '/api/v1/leads'],
        ] as const) {
          const response = await t.http()[method](path).set('X-API-Key', tenant.key);
          expectError(response, 404, 'NOT_FOUND');
          expect(response.headers['content-type']).toMatch(/^application\/json/);
        }
      });
    });

    describe('admin API authentication', () => {
      it.each([
        ['no Authorization header', undefined],
        ['a wrong token', `Bearer ${ADMIN_TOKEN}x`],
        ['an empty bearer token', 'Bearer '],
        ['the token without a scheme', ADMIN_TOKEN],
        ['the Basic scheme', `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`],
        ['the Token scheme', `Token ${ADMIN_TOKEN}`],
      ])('answers 401 UNAUTHORIZED for %s', async (_what, authorization) => {
        const read = t.http().get(`/admin/v1/tenants/${tenant.id}`);
        const write = t
          .http()
          .post('/admin/v1/tenants')
          .send({ name: 'Intruder', slug: `intruder-${Date.now()}`, plan: 'enterprise' });
        if (authorization !== undefined) {
          read.set('Authorization', authorization);
          write.set('Authorization', authorization);
        }
        expectError(await read, 401, 'UNAUTHORIZED');
        expectError(await write, 401, 'UNAUTHORIZED');
      });

      it('does not accept an API key as the admin token', async () => {
        expectError(await t.http().get(`/admin/v1/tenants/${tenant.id}`).set('X-API-Key', tenant.key), 401, 'UNAUTHORIZED');
        expectError(await t.http().get(`/admin/v1/tenants/${tenant.id}`).set('Authorization', `Bearer ${tenant.key}`), 401, 'UNAUTHORIZED');
      });

      it('created nothing through the refused requests', async () => {
        expect(await t.prisma.tenant.count({ where: { name: 'Intruder' } })).toBe(0);
      });
    });
  });

  describe('admin API switched off (ADMIN_API_TOKEN unset)', () => {
    let t: TestApp;

    beforeAll(async () => {
      // loadConfig drops undefined and empty values, so this removes the token createTestApp sets.
      t = await createTestApp({ ADMIN_API_TOKEN: undefined });
    });
    afterAll(() => t.close());

    it.each([
      ['GET', '/admin/v1/tenants/0190a4b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b'],
      ['POST', '/admin/v1/tenants'],
      ['PATCH', '/admin/v1/tenants/0190a4b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b'],
      ['GET', '/admin/v1/tenants/0190a4b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b/api-keys'],
      ['DELETE', '/admin/v1/tenants/0190a4b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b/api-keys/0190a4b2-7c3d-7e4f-8a5b-6c7d8e9f0a1c'],
    ])('%s %s answers 404 NOT_FOUND, with or without a token', async (method, path) => {
      const verb = method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
      expectError(await t.http()[verb](path), 404, 'NOT_FOUND');
      expectError(await t.http()[verb](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`), 404, 'NOT_FOUND');
    });

    it('creates no tenant when asked with the token tests use elsewhere', async () => {
      const slug = `off-${Date.now()}`;
      const response = await t.http().post('/admin/v1/tenants').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({ name: 'Off', slug, plan: 'pro' });
      expectError(response, 404, 'NOT_FOUND');
      expect(await t.prisma.tenant.count({ where: { slug } })).toBe(0);
    });

    it('still serves the public API', async () => {
      expectError(await t.http().get('/api/v1/verify'), 401, 'INVALID_API_KEY');
    });
  });
});
