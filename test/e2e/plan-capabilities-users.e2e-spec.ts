import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { asUser, signUp, TestUser } from '../support/users';

/**
 * Issue 32: plans apply to users as to keys where a plan grants a capability (API_DECISIONS part
 * 4). A Free tenant's owner could create webhook endpoints and import leads from the dashboard that
 * its keys are refused; now both are 403 PLAN_UPGRADE_REQUIRED on Free, and reading stays open.
 */
describe('Plan capabilities for users', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' });
    owner = await signUp(t);
  });
  afterAll(() => t.close());

  const endpoint = { url: 'http://127.0.0.1:9/hook', events: ['lead.created'] };
  const leads = { leads: [{ name: 'Imported', email: 'imported@example.com' }] };

  it('refuses a Free owner endpoint creation and lead import with 403 PLAN_UPGRADE_REQUIRED, and lets them read', async () => {
    const user = asUser(t, owner.cookie, owner.tenantId);
    const created = await user.post('/api/v1/webhooks').send(endpoint);
    expectError(created, 403, 'PLAN_UPGRADE_REQUIRED');
    expect(created.body.error.message).toBe('Creating webhook endpoints requires the Pro plan or higher.');
    const imported = await user.post('/api/v1/leads/import').send(leads);
    expectError(imported, 403, 'PLAN_UPGRADE_REQUIRED');
    expect(imported.body.error.message).toBe('Importing leads requires the Pro plan or higher.');
    expect((await user.get('/api/v1/webhooks').expect(200)).body).toEqual({ webhooks: [] });
    expect((await user.get('/api/v1/leads').expect(200)).body.leads).toEqual([]);
    // Nothing was made.
    expect(await t.prisma.webhookEndpoint.count({ where: { tenantId: owner.tenantId } })).toBe(0);
    expect(await t.prisma.lead.count({ where: { tenantId: owner.tenantId } })).toBe(0);
  });

  it('lets the owner create and import once the tenant is on Pro', async () => {
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
    const user = asUser(t, owner.cookie, owner.tenantId);
    await user.post('/api/v1/webhooks').send(endpoint).expect(201);
    expect((await user.post('/api/v1/leads/import').send(leads).expect(201)).body.imported).toBe(1);
  });
});
