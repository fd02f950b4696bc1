import { EventRecorder } from '../../src/events/event-recorder';
import { DeliveryQueueRepository } from '../../src/webhooks/delivery/delivery-queue.repository';
import type { AttemptRecord } from '../../src/webhooks/delivery/recorded-attempts';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, createWebhookEndpoint, TestTenant } from '../support/factories';

const LEASE_MS = 60_000;
const room = (slots: number) => ({
  slots,
  perEndpoint: 4,
  perTenant: 8,
  endpointsInFlight: new Map<string, number>(),
  tenantsInFlight: new Map<string, number>(),
});

/**
 * The delivery queue records the attempts that ended since the last poll in the statement of the
 * next claim, several at once: each delivery keeps its own outcome, and the claim never takes one
 * of them again. (No worker runs here: the queue is driven by hand.)
 */
describe('Webhook delivery queue: outcomes recorded together', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let queue: DeliveryQueueRepository;
  let endpointId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    queue = t.app.get(DeliveryQueueRepository);
    endpointId = await createWebhookEndpoint(t, tenant.key, 'https://hooks.example.com/batch', ['webhook.test']);
  });
  afterAll(() => t.close());

  async function publish(n: number): Promise<string[]> {
    const recorder = t.app.get(EventRecorder);
    const queued = await t.prisma.$transaction((tx) =>
      recorder.publishAll(
        tx,
        tenant.id,
        Array.from({ length: n }, (_, i) => ({ type: 'webhook.test' as const, object: { n: i, text: 'Zoë "quoted"' } })),
      ),
    );
    return queued.map(({ deliveryIds }) => deliveryIds[0]);
  }

  it('claims with the event (its stored JSON text) and the endpoint, in event order, and leases what it claims', async () => {
    const ids = await publish(3);
    const { claimed } = await queue.claimDue(room(3), LEASE_MS, [tenant.id]);
    expect(claimed.map((d) => d.id)).toEqual(ids);
    expect(claimed[0]).toMatchObject({ tenantId: tenant.id, endpointId, attempts: 0, endpoint: { url: 'https://hooks.example.com/batch', enabled: true } });
    expect(claimed[0].endpoint.secret).toMatch(/^whsec_/);
    expect(JSON.parse(claimed[1].event.data)).toEqual({ object: { n: 1, text: 'Zoë "quoted"' } });
    expect(claimed[1].event.type).toBe('webhook.test');
    // Leased: a second claim takes none of them.
    expect((await queue.claimDue(room(3), LEASE_MS, [tenant.id])).claimed).toEqual([]);
    await queue.release(ids);
    await t.prisma.webhookDelivery.updateMany({ where: { id: { in: ids } }, data: { status: 'failed', nextAttemptAt: null } });
  });

  it('records a batch of finished attempts in the next claim, each with its own outcome, and claims others', async () => {
    const ids = await publish(5);
    const { claimed } = await queue.claimDue(room(3), LEASE_MS, [tenant.id]);
    expect(claimed.map((d) => d.id)).toEqual(ids.slice(0, 3));
    const at = new Date('2026-11-26T01:00:00.123Z');
    const outcomes: AttemptRecord[] = [
      { status: 'succeeded', attemptedAt: at, nextAttemptAt: null, responseStatus: 204, responseBody: '', error: null, durationMs: 7 },
      {
        status: 'pending',
        attemptedAt: at,
        nextAttemptAt: new Date(at.getTime() + 3_600_000),
        responseStatus: 503,
        responseBody: 'busy',
        error: 'HTTP 503',
        durationMs: 12,
      },
      { status: 'pending', attemptedAt: at, nextAttemptAt: at, responseStatus: null, responseBody: null, error: 'connection refused', durationMs: 1 },
    ];
    // The claim that records them takes the two that remain, not the ones it records (the last, a retry due at once, included).
    const next = await queue.claimDue(
      room(4),
      LEASE_MS,
      [tenant.id],
      claimed.map((d, i) => ({ deliveryId: d.id, endpointId, attempt: outcomes[i] })),
    );
    expect(next.claimed.map((d) => d.id)).toEqual(ids.slice(3));
    const rows = await t.prisma.webhookDelivery.findMany({ where: { id: { in: ids.slice(0, 3) } } });
    const byId = new Map(rows.map((row) => [row.id, row]));
    outcomes.forEach((outcome, i) =>
      expect(byId.get(ids[i])).toMatchObject({
        status: outcome.status,
        attempts: 1,
        lastAttemptAt: at,
        nextAttemptAt: outcome.nextAttemptAt,
        lastResponseStatus: outcome.responseStatus,
        lastResponseBody: outcome.responseBody,
        lastError: outcome.error,
        lastDurationMs: outcome.durationMs,
        leaseUntil: null,
      }),
    );
    // And alone (shutdown): the two claimed last, one succeeded, one failed for good.
    await queue.recordAttempts([
      { deliveryId: ids[3], endpointId, attempt: outcomes[0] },
      { deliveryId: ids[4], endpointId, attempt: { ...outcomes[2], status: 'failed', nextAttemptAt: null } },
    ]);
    const last = await t.prisma.webhookDelivery.findMany({
      where: { id: { in: ids.slice(3) } },
      select: { id: true, status: true, attempts: true, leaseUntil: true, lastError: true },
    });
    expect(new Map(last.map((row) => [row.id, row]))).toEqual(
      new Map([
        [ids[3], { id: ids[3], status: 'succeeded', attempts: 1, leaseUntil: null, lastError: null }],
        [ids[4], { id: ids[4], status: 'failed', attempts: 1, leaseUntil: null, lastError: 'connection refused' }],
      ]),
    );
  });

  // Two connections are needed (PGlite has one): the row is held by a transaction on another one.
  (process.env.E2E_DATABASE_URL ? it : it.skip)(
    'does not wait for a row an endpoint deletion holds: leaves it unrecorded, and drops it once the deletion commits',
    async () => {
      const ids = await publish(2);
      await queue.claimDue(room(2), LEASE_MS, [tenant.id]);
      const at = new Date();
      const outcome: AttemptRecord = {
        status: 'succeeded',
        attemptedAt: at,
        nextAttemptAt: null,
        responseStatus: 200,
        responseBody: 'ok',
        error: null,
        durationMs: 3,
      };
      const finished = ids.map((deliveryId) => ({ deliveryId, endpointId, attempt: outcome }));
      await t.prisma.$transaction(async (tx) => {
        // As the cascade of DELETE /webhooks/:id does: the row deleted, the transaction still open.
        await tx.webhookDelivery.delete({ where: { id: ids[0] } });
        expect(await queue.recordAttempts(finished)).toEqual([ids[0]]);
        const next = await queue.claimDue(room(1), LEASE_MS, [tenant.id], finished.slice(0, 1));
        expect(next.unrecorded).toEqual([ids[0]]);
        await queue.release(next.claimed.map(({ id }) => id));
      });
      expect(await queue.recordAttempts(finished.slice(0, 1))).toEqual([]);
      expect((await queue.claimDue(room(1), LEASE_MS, [tenant.id], finished.slice(0, 1))).unrecorded).toEqual([]);
      expect(await t.prisma.webhookDelivery.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } })).toEqual([
        { id: ids[1], status: 'succeeded' },
      ]);
    },
  );
});
