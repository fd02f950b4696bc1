import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, createWebhookEndpoint, TestTenant } from '../support/factories';
import { WebhookReceiver } from '../support/webhook-receiver';

const MINUTE = 60_000;

/**
 * Issue 32 (API_DECISIONS part 4): an endpoint whose last 5 attempts all timed out or failed to
 * connect is not tried for 1 min, doubling up to 1 h; its deliveries keep their attempts, and a
 * success ends the pause. The minutes are skipped by moving pausedUntil back in the database.
 */
describe('Webhook endpoints that cannot be reached are paused', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let down: WebhookReceiver;
  let up: WebhookReceiver;
  let port: number;

  beforeAll(async () => {
    // A port nothing listens on until the receiver comes back: every attempt is refused at once.
    down = await new WebhookReceiver().start();
    port = down.port;
    await down.stop();
    up = await new WebhookReceiver().start();
    t = await createTestApp(
      { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1' },
      { webhookDelivery: { pollMs: 50, timeoutMs: 5_000, tenantIds: [] } },
    );
    tenant = await createTenant(t, { plan: 'enterprise' });
    Object.assign(t.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
  });
  afterAll(async () => {
    await t.close();
    await down.stop();
    await up.stop();
  });

  const webhook = async (id: string) => (await t.http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(200)).body.webhook;
  const deliveries = (endpointId: string) =>
    t.prisma.webhookDelivery.findMany({ where: { endpointId }, select: { status: true, attempts: true, leaseUntil: true, nextAttemptAt: true } });
  const sendTest = (id: string) => t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);

  it('pauses after 5 refused connections, tries nothing during the pause, doubles it, and a success ends it', async () => {
    const endpointId = await createWebhookEndpoint(t, tenant.key, `http://127.0.0.1:${port}/paused`, ['webhook.test']);
    const probeId = await createWebhookEndpoint(t, tenant.key, up.url('/probe'), ['webhook.test']);
    for (let i = 0; i < 5; i++) await sendTest(endpointId);

    await up.until(async () => (await webhook(endpointId)).pausedUntil !== null);
    const paused = Date.parse((await webhook(endpointId)).pausedUntil);
    expect(paused - Date.now()).toBeGreaterThan(MINUTE - 15_000);
    expect(paused - Date.now()).toBeLessThanOrEqual(MINUTE);
    // Nothing in flight any more, every delivery waiting with the attempts it had, and due.
    await up.until(async () => (await deliveries(endpointId)).every((d) => d.leaseUntil === null && d.nextAttemptAt!.getTime() < Date.now() - 100), 10_000);
    const before = await deliveries(endpointId);
    expect(before.map((d) => d.status)).toEqual(Array(5).fill('pending'));

    // Another endpoint's event goes out after the deliveries were due: the worker claimed since, and passed them over.
    await sendTest(probeId);
    await up.until(() => up.received.some((r) => r.path === '/probe'));
    expect((await deliveries(endpointId)).map((d) => d.attempts)).toEqual(before.map((d) => d.attempts));

    // The minute passes while the receiver is still down: the next refused attempt pauses it for 2 minutes.
    await t.prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { pausedUntil: new Date(Date.now() - 1_000) } });
    await up.until(async () => {
      const { pausedUntil } = await webhook(endpointId);
      return pausedUntil !== null && Date.parse(pausedUntil) > Date.now() + MINUTE;
    });
    expect(Date.parse((await webhook(endpointId)).pausedUntil) - Date.now()).toBeLessThanOrEqual(2 * MINUTE);

    // The receiver is back and the pause over: the deliveries go out, and the success clears the pause and its doubling.
    down = await new WebhookReceiver().start(port);
    await t.prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { pausedUntil: new Date(Date.now() - 1_000) } });
    await up.until(async () => (await deliveries(endpointId)).every((d) => d.status === 'succeeded'), 15_000);
    expect(down.received).toHaveLength(5);
    expect((await webhook(endpointId)).pausedUntil).toBeNull();
    expect(
      await t.prisma.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { unreachableStreak: true, pauses: true, pausedUntil: true } }),
    ).toEqual({
      unreachableStreak: 0,
      pauses: 0,
      pausedUntil: null,
    });
  });
});
