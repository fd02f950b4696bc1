import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createLead, createTenant, TestTenant } from '../support/factories';

/** Date filters take the years 0001-9999 as written (Date.UTC once read 0050 as 1950). */
describe('Date filters in the years 0001-0099', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    await createLead(t, tenant.key);
  });
  afterAll(() => t.close());

  it.each(['leads', 'conversations'])('reads from=0050-01-01 on /api/v1/%s as the year 50', async (resource) => {
    const response = await t.http().get(`/api/v1/${resource}?from=0050-01-01&to=0099-12-31`).set('X-API-Key', tenant.key).expect(200);
    expect(response.body.pagination.total).toBe(0);
    const since = await t.http().get(`/api/v1/${resource}?from=0050-01-01`).set('X-API-Key', tenant.key).expect(200);
    expect(since.body.pagination.total).toBe(resource === 'leads' ? 1 : 0);
  });

  it('refuses the year 0000 with 400 on the field', async () => {
    const response = await t.http().get('/api/v1/leads?from=0000-01-01').set('X-API-Key', tenant.key);
    expectError(response, 400, 'VALIDATION_ERROR', [{ field: 'from', message: expect.any(String) }]);
  });
});
