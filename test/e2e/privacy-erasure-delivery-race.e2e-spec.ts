import type { ServerResponse } from 'node:http';
import { PRIVACY_OPTIONS, type PrivacyOptions } from '../../src/privacy/privacy-options';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, createWebhookEndpoint, TestTenant } from '../support/factories';
import { Received, WebhookReceiver } from '../support/webhook-receiver';

const EMAIL = 'ruth.racing-erasure@example.com';

/**
 * Issue 32: an attempt in flight while an erasure runs, whose answer echoes the person, is recorded
 * after the erasure's redaction steps: that answer must not be stored either (API_DECISIONS part 4).
 */
describe('Privacy: an erasure and a webhook answer recorded after it began', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const receiver = new WebhookReceiver();
  const held: { request: Received; response: ServerResponse }[] = [];

  beforeAll(async () => {
    await receiver.start();
    // The receiver answers only when told to, with what it got: the person's data.
    receiver.respond = (request, response) => void held.push({ request, response });
    t = await createTestApp(
      { PRIVACY_WORKER: 'true', WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' },
      { privacy: { erasurePollMs: 50, tenantIds: [] }, webhookDelivery: { pollMs: 50, timeoutMs: 60_000, tenantIds: [] } },
    );
    tenant = await createTenant(t, { plan: 'enterprise' });
    Object.assign(t.app.get<PrivacyOptions>(PRIVACY_OPTIONS), { tenantIds: [tenant.id] });
    Object.assign(t.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('does not store the answer of an attempt that was in flight while the erasure ran', async () => {
    const endpointId = await createWebhookEndpoint(t, tenant.key, receiver.url(), ['lead.created']);
    await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).send({ name: 'Ruth Racing', email: EMAIL }).expect(201);
    await receiver.until(() => held.length === 1);

    const { erasure } = (await t.http().post('/api/v1/privacy/erasures').set('X-API-Key', tenant.key).send({ email: EMAIL }).expect(202)).body;
    await receiver.until(
      async () => (await t.http().get(`/api/v1/privacy/erasures/${erasure.id}`).set('X-API-Key', tenant.key).expect(200)).body.erasure.status === 'completed',
    );
    const [{ request, response }] = held;
    expect(request.body).toContain(EMAIL);
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(request.body);

    await receiver.until(async () => (await t.prisma.webhookDelivery.findFirst({ where: { endpointId } }))?.status === 'succeeded');
    expect(await t.prisma.webhookDelivery.findFirst({ where: { endpointId }, select: { lastResponseStatus: true, lastResponseBody: true } })).toEqual({
      lastResponseStatus: 200,
      lastResponseBody: null,
    });
  });
});
