import { EventRecorder } from '../../src/events/event-recorder';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, createWebhookEndpoint, TestTenant } from '../support/factories';
import { openTestDatabase } from '../support/test-database';
import { WebhookReceiver } from '../support/webhook-receiver';

const EVENTS = 1_000;
const OPTIONS = { pollMs: 50, timeoutMs: 2_000, leaseMs: 1_000, drainMs: 2_000, batchSize: 20, tenantIds: [] as string[] };

/** Two instances on one database deliver each event exactly once; a claim whose instance died is taken over. */
describe('Webhook delivery across instances', () => {
  let first: TestApp;
  let second: TestApp;
  let tenant: TestTenant;
  let receiver: WebhookReceiver;
  let endpointId: string;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    const env = { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '1' };
    first = await createTestApp(env, { webhookDelivery: OPTIONS });
    // Its own pool on PostgreSQL (another instance); the same embedded database otherwise.
    const connection = process.env.E2E_DATABASE_URL ? await openTestDatabase() : first.connection;
    second = await createTestApp(env, { webhookDelivery: OPTIONS, connection });
    tenant = await createTenant(first, { plan: 'enterprise' });
    for (const app of [first, second]) Object.assign(app.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
    endpointId = await createWebhookEndpoint(first, tenant.key, receiver.url('/both'), ['webhook.test']);
  });
  afterAll(async () => {
    await second.close();
    if (second.connection !== first.connection) await second.connection.close();
    await first.close();
    await receiver.stop();
  });

  it(`delivers ${EVENTS} events exactly once between two instances, each from its own commit`, async () => {
    const recorder = first.app.get(EventRecorder);
    const started = Date.now();
    for (let batch = 0; batch < EVENTS / 100; batch++) {
      await first.prisma.$transaction(async (tx) => {
        for (let i = 0; i < 100; i++) await recorder.publish(tx, tenant.id, { type: 'webhook.test', object: { n: batch * 100 + i } }, endpointId);
      });
    }
    await receiver.until(() => new Set(receiver.received.map((r) => r.headers['webhook-id'])).size >= EVENTS, 60_000);
    const took = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect({ received: ids.length, distinct: new Set(ids).size }).toEqual({ received: EVENTS, distinct: EVENTS });
    expect(await first.prisma.webhookDelivery.groupBy({ by: ['status'], where: { endpointId }, _count: true })).toEqual([
      { status: 'succeeded', _count: EVENTS },
    ]);
    process.stdout.write(
      `\n[webhooks] ${EVENTS} events through two instances (${first.connection.kind}): ${took} ms from the first commit to the last receipt\n`,
    );
  }, 90_000);

  it('takes over a delivery whose instance died holding it, once its lease has passed', async () => {
    receiver.received.length = 0;
    // Queued already claimed, as by a third instance that died before sending: nothing will record or release it.
    const claimedAt = Date.now();
    await first.prisma.$transaction(async (tx) => {
      const queued = await first.app.get(EventRecorder).publish(tx, tenant.id, { type: 'webhook.test', object: { dying: true } }, endpointId);
      await tx.webhookDelivery.update({ where: { id: queued!.deliveryIds[0] }, data: { leaseUntil: new Date(claimedAt + 1_500) } });
    });
    let answer: (() => void) | undefined;
    receiver.respond = (_request, response) => void (answer = () => response.writeHead(200).end());
    try {
      await receiver.until(() => receiver.received.some((r) => r.body.includes('"dying":true')), 10_000);
      expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(1_400);
      // While the instance that took it over sends it, the interrupted attempt is on record.
      const [taken] = (await first.http().get(`/api/v1/webhooks/${endpointId}/deliveries?limit=1`).set('X-API-Key', tenant.key).expect(200)).body.deliveries;
      expect(taken).toMatchObject({ status: 'pending', attempts: 1, lastError: 'interrupted: the delivering instance stopped', lastResponseStatus: null });
      answer!();
      await receiver.until(async () => (await first.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: taken.id } })).status === 'succeeded');
      expect(await first.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: taken.id } })).toMatchObject({
        attempts: 2,
        lastError: null,
        lastResponseStatus: 200,
      });
      expect(receiver.received.filter((r) => r.body.includes('"dying":true'))).toHaveLength(1);
    } finally {
      receiver.respond = (_request, response) => response.writeHead(200).end('ok');
    }
  });

  it('renews the lease while an attempt takes longer than it: the other instance never sends it too', async () => {
    receiver.received.length = 0;
    // Answered after 1.8 s: longer than the 1 s lease, within the 2 s timeout.
    receiver.respond = (request, response) => void setTimeout(() => response.writeHead(200).end(), request.body.includes('"slow":true') ? 1_800 : 0);
    try {
      await first.prisma.$transaction((tx) =>
        first.app.get(EventRecorder).publish(tx, tenant.id, { type: 'webhook.test', object: { slow: true } }, endpointId),
      );
      await receiver.until(() => receiver.received.some((r) => r.body.includes('"slow":true')), 10_000);
      const [delivery] = (await first.http().get(`/api/v1/webhooks/${endpointId}/deliveries?limit=1`).set('X-API-Key', tenant.key).expect(200)).body.deliveries;
      await receiver.until(async () => (await first.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).status === 'succeeded', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.received.filter((r) => r.body.includes('"slow":true'))).toHaveLength(1);
      expect(await first.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'succeeded', attempts: 1 });
    } finally {
      receiver.respond = (_request, response) => response.writeHead(200).end('ok');
    }
  });
});
