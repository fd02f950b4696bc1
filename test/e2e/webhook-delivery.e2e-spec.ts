import { Webhook } from 'standardwebhooks';
import { EventRecorder } from '../../src/events/event-recorder';
import { AppLogger } from '../../src/logging/app-logger';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import { DeliveryQueueRepository } from '../../src/webhooks/delivery/delivery-queue.repository';
import { DeliveryWorker } from '../../src/webhooks/delivery/delivery-worker';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, TestTenant } from '../support/factories';
import { WebhookReceiver } from '../support/webhook-receiver';

// tenantIds: none until deliverOnlyFor names the suite's tenant. On PostgreSQL the suites share one
// database: a worker that starts unscoped claims the others' deliveries (to hosts that do not
// resolve here) and holds its slots with them while its own delivery waits.
const FAST = { pollMs: 50, timeoutMs: 1_000, leaseMs: 3_000, drainMs: 2_000, tenantIds: [] as string[] };

/** On PostgreSQL the suites share one database: this instance sends only its own tenant's events. */
function deliverOnlyFor(t: TestApp, tenantId: string): void {
  Object.assign(t.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenantId] });
}

/** Delivery to a real receiver on 127.0.0.1: signed, retried, recorded, and kept inside the rules. */
describe('Webhook delivery', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp(
      { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32,::1/128', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2' },
      { webhookDelivery: FAST },
    );
    tenant = await createTenant(t, { plan: 'enterprise' });
    deliverOnlyFor(t, tenant.id);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = (_request, response) => response.writeHead(200).end('ok');
  });

  async function endpoint(path: string, body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    const created = await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: receiver.url(path), events: ['*'], ...body })
      .expect(201);
    return { id: created.body.webhook.id, secret: created.body.secret };
  }
  const deliveriesOf = async (id: string) => (await t.http().get(`/api/v1/webhooks/${id}/deliveries`).set('X-API-Key', tenant.key).expect(200)).body.deliveries;

  it('delivers an event signed per Standard Webhooks, with the resource as the API returns it', async () => {
    const { id, secret } = await endpoint('/signed');
    const lead = (await t.http().post('/api/v1/leads').set('X-API-Key', tenant.key).send({ name: 'Signed Lead', email: 'signed@example.com' }).expect(201)).body
      .lead;
    await receiver.until(() => receiver.received.some((request) => request.body.includes(lead.id)));
    const request = receiver.received.find((r) => r.body.includes(lead.id))!;
    const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toEqual({ id: request.headers['webhook-id'], type: 'lead.created', createdAt: expect.any(String), data: { object: lead } });
    expect(request.headers['content-type']).toBe('application/json');
    await receiver.until(async () => (await deliveriesOf(id)).some((d: { status: string }) => d.status === 'succeeded'));
    const [delivery] = await deliveriesOf(id);
    expect(delivery).toMatchObject({
      eventId: request.headers['webhook-id'],
      eventType: 'lead.created',
      status: 'succeeded',
      attempts: 1,
      lastResponseStatus: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('signs with both secrets during a rotation', async () => {
    const { id, secret } = await endpoint('/rotated', { events: ['webhook.test'] });
    const rotated = (await t.http().post(`/api/v1/webhooks/${id}/rotate-secret`).set('X-API-Key', tenant.key).expect(200)).body.secret;
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(() => receiver.received.length > 0);
    const [request] = receiver.received;
    expect(request.headers['webhook-signature']!.toString().split(' ')).toHaveLength(2);
    for (const key of [secret, rotated])
      expect(new Webhook(key).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('retries 500s on the schedule with the same webhook-id, then fails, recording each attempt', async () => {
    receiver.respond = (_request, response) => response.writeHead(500).end('x'.repeat(20_000));
    const { id } = await endpoint('/broken', { events: ['webhook.test'] });
    const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
    await receiver.until(async () => (await deliveriesOf(id))[0].status === 'failed');
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.eventId]));
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'failed', attempts: 4, lastResponseStatus: 500, lastError: 'HTTP 500', nextAttemptAt: null });
    const row = await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row.lastResponseBody).toHaveLength(16 * 1024);
    // A manual retry sends it once more.
    receiver.respond = (_request, response) => response.writeHead(204).end();
    await t.http().post(`/api/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await deliveriesOf(id))[0].status === 'succeeded');
    expect((await deliveriesOf(id))[0]).toMatchObject({ attempts: 5, lastResponseStatus: 204 });
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('delivers once the receiver is back after being down', async () => {
    const down = await new WebhookReceiver().start();
    const port = down.port;
    await down.stop();
    const created = await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: `http://127.0.0.1:${port}/later`, events: ['webhook.test'] })
      .expect(201);
    const id = created.body.webhook.id;
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await deliveriesOf(id))[0].attempts >= 1);
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'pending', lastError: 'connection refused', lastResponseStatus: null });
    const back = await new WebhookReceiver().start(port);
    try {
      await back.until(() => back.received.length === 1);
      await back.until(async () => (await deliveriesOf(id))[0].status === 'succeeded');
    } finally {
      await back.stop();
    }
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('disables the endpoint on 410 (gone), audited', async () => {
    receiver.respond = (_request, response) => response.writeHead(410).end();
    const { id } = await endpoint('/gone', { events: ['webhook.test'] });
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await t.http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key)).body.webhook.enabled === false);
    expect((await t.http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key)).body.webhook).toMatchObject({ enabled: false, disabledReason: 'gone' });
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'failed', attempts: 1, lastResponseStatus: 410 });
    const [audit] = (await t.admin().get(`/admin/v1/tenants/${tenant.id}/audit-log?limit=1`).expect(200)).body.events;
    expect(audit).toMatchObject({ actor: 'system', action: 'webhook.disabled', targetType: 'webhook', targetId: id, data: { reason: 'gone' } });
  });

  it('records a timeout, does not follow redirects, and honours Retry-After', async () => {
    receiver.respond = (request, response) => {
      if (request.body.includes('"slow"')) return void setTimeout(() => response.writeHead(200).end(), 1_500);
      if (request.body.includes('"moved"')) return void response.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' }).end();
      return void response.writeHead(503, { 'Retry-After': '30' }).end();
    };
    const recorder = t.app.get(EventRecorder);
    const ids: Record<string, string> = {};
    for (const name of ['slow', 'moved', 'busy']) {
      const { id } = await endpoint(`/${name}`, { events: ['webhook.test'] });
      ids[name] = id;
      await t.prisma.$transaction((tx) => recorder.publish(tx, tenant.id, { type: 'webhook.test', object: { case: name } }, id));
    }
    await receiver.until(async () => (await Promise.all(Object.values(ids).map(deliveriesOf))).every((list) => list[0].attempts >= 1));
    expect((await deliveriesOf(ids.slow))[0]).toMatchObject({ status: 'pending', lastError: 'timeout after 1 s' });
    expect((await deliveriesOf(ids.moved))[0]).toMatchObject({
      status: expect.stringMatching(/^(pending|failed)$/),
      lastResponseStatus: 302,
      lastError: 'redirect (302) not followed',
    });
    const busy = (await deliveriesOf(ids.busy))[0];
    expect(busy).toMatchObject({ status: 'pending', lastResponseStatus: 503 });
    expect(Date.parse(busy.nextAttemptAt) - Date.parse(busy.lastAttemptAt)).toBeGreaterThanOrEqual(29_000);
    for (const id of Object.values(ids)) await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('counts a Retry-After of 99999999999999 seconds as one hour, and records the attempt', async () => {
    receiver.respond = (_request, response) => response.writeHead(429, { 'Retry-After': '99999999999999' }).end();
    const { id } = await endpoint('/far-future', { events: ['webhook.test'] });
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await deliveriesOf(id))[0].attempts >= 1);
    const [delivery] = await deliveriesOf(id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastResponseStatus: 429, lastError: 'HTTP 429' });
    expect(Date.parse(delivery.nextAttemptAt) - Date.parse(delivery.lastAttemptAt)).toBe(3_600_000);
    expect(receiver.received.filter((request) => request.path === '/far-future')).toHaveLength(1);
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('answers 409 DELIVERY_IN_FLIGHT to a retry while the delivery is being sent, and sends it once', async () => {
    let answer: (() => void) | undefined;
    receiver.respond = (_request, response) => void (answer = () => response.writeHead(200).end());
    const { id } = await endpoint('/in-flight', { events: ['webhook.test'] });
    const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
    await receiver.until(() => answer !== undefined);
    const retried = await t.http().post(`/api/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set('X-API-Key', tenant.key);
    expectError(retried, 409, 'DELIVERY_IN_FLIGHT');
    answer!();
    await receiver.until(async () => (await deliveriesOf(id))[0].status === 'succeeded');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((request) => request.path === '/in-flight')).toHaveLength(1);
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    // Once the attempt is recorded, a retry is accepted again.
    await t.http().post(`/api/v1/webhooks/${id}/deliveries/${delivery.id}/retry`).set('X-API-Key', tenant.key).expect(202);
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('reads at most 64 KiB of an answer, then closes the connection', async () => {
    let sent = 0;
    let sentBeforeClose: number | undefined;
    receiver.respond = (_request, response) => {
      // An answer that never ends: written as fast as the connection takes it, until it closes.
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!response.destroyed) {
          sent += chunk.length;
          if (!response.write(chunk)) return;
        }
      };
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.on('drain', pump).on('close', () => (sentBeforeClose = sent));
      pump();
    };
    const { id } = await endpoint('/endless', { events: ['webhook.test'] });
    const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
    await receiver.until(async () => (await deliveriesOf(id))[0].attempts >= 1);
    expect((await deliveriesOf(id))[0]).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseStatus: 200, lastError: null });
    const row = await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(row.lastResponseBody).toBe('x'.repeat(16 * 1024));
    expect(row.lastDurationMs).toBeLessThan(FAST.timeoutMs);
    await receiver.until(() => sentBeforeClose !== undefined);
    // What the sockets' buffers took before the close, not an endless read.
    expect(sentBeforeClose).toBeLessThan(64 * 1024 * 1024);
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('refuses at send time an IPv4-compatible IPv6 address ([::127.0.0.1]) stored before the rule existed', async () => {
    const { id } = await endpoint('/compatible', { events: ['webhook.test'] });
    await t.prisma.webhookEndpoint.update({ where: { id }, data: { url: `http://[::127.0.0.1]:${receiver.port}/compatible` } });
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await deliveriesOf(id))[0].attempts >= 1);
    expect((await deliveriesOf(id))[0]).toMatchObject({
      status: 'pending',
      lastResponseStatus: null,
      lastError: 'address not allowed (private, loopback, link-local or reserved, outside WEBHOOK_ALLOWED_CIDRS)',
    });
    expect(receiver.received.filter((request) => request.path === '/compatible')).toHaveLength(0);
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('logs a failed attempt (IPv6 here) as one structured warning with its reason, and nothing beside the log', async () => {
    const closed = await new WebhookReceiver().start();
    const port = closed.port;
    await closed.stop();
    const logged = jest.spyOn(AppLogger.prototype, 'warn');
    const stray = [jest.spyOn(console, 'warn'), jest.spyOn(console, 'error'), jest.spyOn(console, 'log')];
    try {
      const created = await t
        .http()
        .post('/api/v1/webhooks')
        .set('X-API-Key', tenant.key)
        .send({ url: `http://[::1]:${port}/v6`, events: ['webhook.test'] })
        .expect(201);
      const id = created.body.webhook.id;
      const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
      await receiver.until(async () => (await deliveriesOf(id))[0].attempts >= 1);
      expect((await deliveriesOf(id))[0]).toMatchObject({ lastError: 'connection refused' });
      const lines = logged.mock.calls.filter(([message]) => (message as { deliveryId?: string }).deliveryId === delivery.id);
      expect(lines[0]).toEqual([
        {
          msg: 'Webhook delivery attempt failed',
          deliveryId: delivery.id,
          tenantId: tenant.id,
          endpointId: id,
          attempt: 1,
          status: 'pending',
          reason: 'connection refused',
        },
        'Webhooks',
      ]);
      for (const spy of stray) expect(spy).not.toHaveBeenCalled();
      await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
    } finally {
      for (const spy of [logged, ...stray]) spy.mockRestore();
    }
  });

  it('sends one attempt after another over one kept-alive connection, still refusing a disallowed address', async () => {
    const { id } = await endpoint('/kept-alive', { events: ['webhook.test'] });
    for (let i = 0; i < 3; i++) {
      await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
      await receiver.until(() => receiver.received.filter((request) => request.path === '/kept-alive').length === i + 1);
    }
    const ports = new Set(receiver.received.filter((request) => request.path === '/kept-alive').map((request) => request.remotePort));
    expect(ports.size).toBe(1);
    // The same receiver behind an address outside the allowed ranges: no pooled socket carries it there.
    await t.prisma.webhookEndpoint.update({ where: { id }, data: { url: `http://[::127.0.0.1]:${receiver.port}/kept-alive` } });
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await deliveriesOf(id)).some((d: { lastError: string | null }) => d.lastError?.startsWith('address not allowed')));
    expect(receiver.received.filter((request) => request.path === '/kept-alive')).toHaveLength(3);
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });

  it('records the attempts that ended even when the claim they went with fails, and sends nothing twice', async () => {
    const queue = t.app.get(DeliveryQueueRepository);
    const claimDue = queue.claimDue.bind(queue);
    let failed = 0;
    const spy = jest.spyOn(queue, 'claimDue').mockImplementation(async (room, leaseMs, tenantIds, finished = []) => {
      if (finished.length && !failed++) throw new Error('claim failed');
      return claimDue(room, leaseMs, tenantIds, finished);
    });
    try {
      const { id } = await endpoint('/claim-failed', { events: ['webhook.test'] });
      await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
      await receiver.until(async () => (await deliveriesOf(id))[0].status === 'succeeded');
      expect(failed).toBeGreaterThan(0);
      expect((await deliveriesOf(id))[0]).toMatchObject({ attempts: 1, lastResponseStatus: 200, lastError: null });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received.filter((request) => request.path === '/claim-failed')).toHaveLength(1);
      await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
    } finally {
      spy.mockRestore();
    }
  });

  it('sends nothing for a change that rolled back', async () => {
    const { id } = await endpoint('/rollback', { events: ['lead.created'] });
    await t
      .http()
      .post('/api/v1/leads')
      .set('X-API-Key', tenant.key)
      .send({ name: 'No', email: 'no@example.com', botId: '0190b6a0-0000-7000-8000-00000000dead' })
      .expect(400);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((request) => request.path === '/rollback')).toHaveLength(0);
    expect(await deliveriesOf(id)).toEqual([]);
    await t.http().delete(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key).expect(204);
  });
});

/** Run after the suite above has closed its instance, so that this instance alone delivers. */
describe('Webhook delivery without WEBHOOK_ALLOWED_CIDRS', () => {
  it('refuses at connect time a name that resolves to loopback, so DNS cannot lead inside', async () => {
    const receiver = await new WebhookReceiver().start();
    // A longer timeout than FAST's: the refusal must not lose a race with a loaded machine's clock.
    const t = await createTestApp({ WEBHOOK_WORKER: 'true', WEBHOOK_RETRY_SCHEDULE: '60' }, { webhookDelivery: { ...FAST, timeoutMs: 10_000 } });
    try {
      const tenant = await createTenant(t, { plan: 'enterprise' });
      deliverOnlyFor(t, tenant.id);
      // Written directly: the API refuses `localhost` itself; a public name resolving to 127.0.0.1 is what this stands for.
      const endpoint = await t.prisma.webhookEndpoint.create({
        data: {
          tenantId: tenant.id,
          url: `http://localhost:${receiver.port}/inside`,
          events: ['*'],
          secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=',
        },
      });
      const delivery = (await t.http().post(`/api/v1/webhooks/${endpoint.id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
      await receiver.until(async () => (await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).attempts >= 1);
      const attempted = await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
      expect(attempted).toMatchObject({ status: 'pending', lastResponseStatus: null, lastError: expect.stringMatching(/^address not allowed/) });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await t.close();
      await receiver.stop();
    }
  });
});

describe('Webhook delivery: disabling a failing endpoint, and shutdown', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp(
      { WEBHOOK_WORKER: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0.2' },
      { webhookDelivery: { ...FAST, drainMs: 300 } },
    );
    tenant = await createTenant(t, { plan: 'enterprise' });
    deliverOnlyFor(t, tenant.id);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('disables an endpoint whose deliveries have all failed for 5 days (failing), audited', async () => {
    receiver.respond = (_request, response) => response.writeHead(500).end();
    const created = await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: receiver.url('/failing'), events: ['webhook.test'] })
      .expect(201);
    const id = created.body.webhook.id;
    // A delivery that failed six days ago, and no success since.
    const old = await t.prisma.webhookEvent.create({ data: { tenantId: tenant.id, type: 'webhook.test', data: { object: {} } } });
    await t.prisma.webhookDelivery.create({
      data: {
        tenantId: tenant.id,
        endpointId: id,
        eventId: old.id,
        eventType: 'webhook.test',
        status: 'failed',
        attempts: 10,
        nextAttemptAt: null,
        createdAt: new Date(Date.now() - 6 * 86_400_000),
      },
    });
    await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202);
    await receiver.until(async () => (await t.http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key)).body.webhook.enabled === false);
    expect((await t.http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key)).body.webhook).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
    });
    const [audit] = (await t.admin().get(`/admin/v1/tenants/${tenant.id}/audit-log?limit=1`).expect(200)).body.events;
    expect(audit).toMatchObject({ actor: 'system', action: 'webhook.disabled', targetId: id, data: { reason: 'failing' } });
  });

  it('keeps an endpoint that failed once but succeeded within 5 days', async () => {
    receiver.respond = (_request, response) => response.writeHead(500).end();
    const id = (
      await t
        .http()
        .post('/api/v1/webhooks')
        .set('X-API-Key', tenant.key)
        .send({ url: receiver.url('/flaky'), events: ['webhook.test'] })
        .expect(201)
    ).body.webhook.id;
    const old = await t.prisma.webhookEvent.create({ data: { tenantId: tenant.id, type: 'webhook.test', data: { object: {} } } });
    await t.prisma.webhookDelivery.create({
      data: {
        tenantId: tenant.id,
        endpointId: id,
        eventId: old.id,
        eventType: 'webhook.test',
        status: 'failed',
        attempts: 10,
        nextAttemptAt: null,
        createdAt: new Date(Date.now() - 6 * 86_400_000),
      },
    });
    await t.prisma.webhookDelivery.create({
      data: {
        tenantId: tenant.id,
        endpointId: id,
        eventId: old.id,
        eventType: 'webhook.test',
        status: 'succeeded',
        attempts: 1,
        nextAttemptAt: null,
        lastAttemptAt: new Date(Date.now() - 86_400_000),
      },
    });
    const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
    await receiver.until(async () => (await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).status === 'failed');
    expect((await t.http().get(`/api/v1/webhooks/${id}`).set('X-API-Key', tenant.key)).body.webhook).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('on shutdown stops claiming and gives back a delivery still in flight after the drain', async () => {
    receiver.respond = () => undefined; // holds every request: the attempt stays in flight
    const id = (
      await t
        .http()
        .post('/api/v1/webhooks')
        .set('X-API-Key', tenant.key)
        .send({ url: receiver.url('/held'), events: ['webhook.test'] })
        .expect(201)
    ).body.webhook.id;
    const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery;
    await receiver.until(() => receiver.received.some((request) => request.path === '/held'));
    expect((await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).leaseUntil).not.toBeNull();
    // The hook the app's close (SIGTERM's graceful shutdown) runs before the database closes.
    await t.app.get(DeliveryWorker).beforeApplicationShutdown();
    const released = await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(released).toMatchObject({ status: 'pending', attempts: 0, leaseUntil: null });
  });
});
