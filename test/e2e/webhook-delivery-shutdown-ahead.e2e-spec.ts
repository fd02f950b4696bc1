import type { ServerResponse } from 'node:http';
import type { DatabaseConnection } from '../../src/database/database-connection';
import { EventRecorder } from '../../src/events/event-recorder';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, createWebhookEndpoint, TestTenant } from '../support/factories';
import { openTestDatabase } from '../support/test-database';
import { WebhookReceiver } from '../support/webhook-receiver';

const EVENTS = 12;
// Two attempts in flight on the endpoint and as many again claimed ahead; a lease far longer than
// the test, so that a delivery the stopping instance kept would not come back in time.
const OPTIONS = { pollMs: 50, timeoutMs: 5_000, leaseMs: 60_000, drainMs: 3_000, batchSize: 8, perEndpoint: 2, perTenant: 2, tenantIds: [] as string[] };

/**
 * An instance stopped (SIGTERM, app.close()) while it holds deliveries claimed ahead of their
 * attempts: it gives them back at once and lets the attempts in flight finish, so another instance
 * sends the rest right away, not after the 60 s lease, and each event arrives exactly once.
 */
describe('Webhook delivery: an instance stopping with deliveries claimed ahead', () => {
  let database: DatabaseConnection;
  let first: TestApp;
  let second: TestApp | undefined;
  /** Reads the rows throughout, with no delivery worker of its own. */
  let observer: TestApp;
  let tenant: TestTenant;
  let receiver: WebhookReceiver;
  const env = { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' };

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    database = await openTestDatabase();
    // The first instance stops mid-test: it borrows the database, which stays open for the second
    // (on the embedded database the two must share one).
    const borrowed = { ...database, close: async () => undefined };
    first = await createTestApp(env, { webhookDelivery: OPTIONS, connection: borrowed });
    observer = await createTestApp({ WEBHOOK_WORKER: 'false' }, { connection: borrowed });
    tenant = await createTenant(first, { plan: 'enterprise' });
    Object.assign(first.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
  });
  afterAll(async () => {
    await second?.close();
    await second?.connection.close();
    await observer.close();
    await database.close();
    await receiver.stop();
  });

  it('gives back what it claimed ahead and finishes what it sends; the next instance delivers the rest at once, each event once', async () => {
    const endpointId = await createWebhookEndpoint(first, tenant.key, receiver.url('/ahead'), ['webhook.test']);
    // The first two attempts wait for the test: the instance then holds two in flight and claims
    // the next ones ahead.
    const held: ServerResponse[] = [];
    receiver.respond = (_request, response) => void held.push(response);
    await first.prisma.$transaction((tx) =>
      first.app.get(EventRecorder).publishAll(
        tx,
        tenant.id,
        Array.from({ length: EVENTS }, (_, n) => ({ type: 'webhook.test' as const, object: { n } })),
      ),
    );
    await receiver.until(() => held.length === 2, 10_000);
    const leased = async () => observer.prisma.webhookDelivery.count({ where: { endpointId, status: 'pending', leaseUntil: { gt: new Date() } } });
    // Two in flight and two claimed ahead, leased by the first instance.
    await receiver.until(async () => (await leased()) === 4, 10_000);

    // Stop it; the attempts in flight are answered during its drain.
    const closing = first.app.close();
    setTimeout(() => held.forEach((response) => response.writeHead(200).end('ok')), 200);
    receiver.respond = (_request, response) => response.writeHead(200).end('ok');
    await closing;
    expect(await observer.prisma.webhookDelivery.count({ where: { endpointId, status: 'succeeded' } })).toBe(2);
    expect(await leased()).toBe(0);

    // Another instance: its own pool on PostgreSQL, the same embedded database otherwise.
    const connection = process.env.E2E_DATABASE_URL ? await openTestDatabase() : database;
    const startedAt = Date.now();
    second = await createTestApp(env, { webhookDelivery: OPTIONS, connection });
    Object.assign(second.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenant.id] });
    await receiver.until(async () => (await observer.prisma.webhookDelivery.count({ where: { endpointId, status: 'succeeded' } })) === EVENTS, 15_000);
    expect(Date.now() - startedAt).toBeLessThan(OPTIONS.leaseMs);
    const ids = receiver.received.filter((r) => r.path === '/ahead').map((r) => String(r.headers['webhook-id']));
    expect({ received: ids.length, distinct: new Set(ids).size }).toEqual({ received: EVENTS, distinct: EVENTS });
    expect(await observer.prisma.webhookDelivery.findMany({ where: { endpointId }, select: { attempts: true } })).toEqual(
      Array.from({ length: EVENTS }, () => ({ attempts: 1 })),
    );
  }, 60_000);
});
