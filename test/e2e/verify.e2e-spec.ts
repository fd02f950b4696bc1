import { createTestApp, TestApp } from '../support/create-test-app';
import { createKey, createTenant, TestTenant } from '../support/factories';

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

  it('answers a public key without usage: a key on a web page tells nobody how busy the tenant is', async () => {
    const publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    const response = await t.http().get('/api/v1/verify').set('X-API-Key', publicKey).expect(200);
    expect(response.body).toEqual({
      valid: true,
      tenant: { id: tenant.id, name: tenant.name, slug: tenant.slug },
      plan: { name: 'business', botsLimit: 25, messagesLimit: 50000 },
    });
  });

  it("reports the month's replies stored elsewhere (another instance) within a second", async () => {
    const busy = await createTenant(t, { plan: 'pro' });
    const counted = async () => (await t.http().get('/api/v1/verify').set('X-API-Key', busy.key).expect(200)).body.usage.messagesThisMonth as number;
    expect(await counted()).toBe(0);
    const now = new Date();
    await t.prisma.messageUsage.create({ data: { tenantId: busy.id, month: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), count: 42 } });
    // Read once a second at most: the first answer may still be the one read before the write.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await counted()).toBe(42);
  });

  it('rejects a missing key with 401 INVALID_API_KEY in the envelope', async () => {
    const response = await t.http().get('/api/v1/verify').expect(401);
    expect(response.body).toEqual({
      error: { code: 'INVALID_API_KEY', message: expect.any(String), status: 401, requestId: response.headers['x-request-id'] },
    });
  });
});
