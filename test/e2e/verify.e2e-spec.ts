import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, TestTenant } from '../support/factories';

describe('GET /api/v1/verify', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'business' });
  });
  afterAll(() => t.close());

  it('answers the tenant and plan of a valid key', async () => {
    const response = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    expect(response.body).toEqual({
      valid: true,
      tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug },
      plan: { name: 'business', botsLimit: 25, messagesLimit: 50000 },
      usage: { messagesThisMonth: 0 },
    });
  });

  it('rejects a missing key with 401 INVALID_API_KEY in the envelope', async () => {
    const response = await t.http().get('/api/v1/verify').expect(401);
    expect(response.body).toEqual({
      error: { code: 'INVALID_API_KEY', message: expect.any(String), status: 401, requestId: response.headers['x-request-id'] },
    });
  });
});
