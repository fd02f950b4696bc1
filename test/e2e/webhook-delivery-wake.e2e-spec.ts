import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, TestTenant } from '../support/factories';
import { WebhookReceiver } from '../support/webhook-receiver';

// A poll interval no test waits for: only the hint of a queued event can start the delivery.
const OPTIONS = { pollMs: 60_000, timeoutMs: 2_000, leaseMs: 3_000, drainMs: 500, tenantIds: [] as string[] };

/** An idle worker hears of an event queued in its process and polls at once, not at its interval. */
describe('Webhook delivery wakes on a queued event', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({ WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' }, { webhookDelivery: OPTIONS });
    tenant = await createTenant(t, { plan: 'enterprise' });
    // On PostgreSQL the suites share one database: this instance sends only this tenant's events.
    Object.assign(t.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('delivers a created lead within seconds while the next poll is a minute away', async () => {
    await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: receiver.url('/woken'), events: ['lead.created'] })
      .expect(201);
    const created = Date.now();
    const lead = (await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).send({ name: 'Woken', email: 'woken@example.com' }).expect(201)).body.lead;
    await receiver.until(() => receiver.received.some((request) => request.body.includes(lead.id)), 5_000);
    expect(Date.now() - created).toBeLessThan(5_000);
  });
});
