import { WEBHOOK_EVENT_TYPES } from '../../src/events/event-catalogue';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createKey, createTenant, TestTenant } from '../support/factories';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const URL_REFUSED =
  'must not point to a private, loopback, link-local or reserved address (WEBHOOK_ALLOWED_CIDRS can allow a range, e.g. 127.0.0.1/32 for a local receiver)';
const CONTROL_CHARACTERS = 'must not contain control characters (such as CR or LF)';

/** The management API of webhooks (API_DECISIONS, Webhooks), scope webhooks:manage. */
describe('Webhooks: the management API', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  const as = (key: string) => ({
    get: (url: string) => t.http().get(url).set('X-API-Key', key),
    post: (url: string) => t.http().post(url).set('X-API-Key', key),
    patch: (url: string) => t.http().patch(url).set('X-API-Key', key),
    delete: (url: string) => t.http().delete(url).set('X-API-Key', key),
  });
  const create = (key: string, body: Record<string, unknown> = {}) =>
    as(key)
      .post('/api/v1/webhooks')
      .send({ url: 'https://hooks.example.com/in', events: ['lead.created'], ...body });

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' });
    [tenant, other] = await Promise.all([createTenant(t, { plan: 'enterprise' }), createTenant(t, { plan: 'enterprise' })]);
  });
  afterAll(() => t.close());

  describe('POST /api/v1/webhooks', () => {
    it('creates an endpoint and shows its secret once', async () => {
      const response = await create(tenant.key, { events: ['lead.created', 'lead.updated', 'lead.created'], description: 'CRM' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        webhook: {
          id: expect.stringMatching(UUID),
          url: 'https://hooks.example.com/in',
          events: ['lead.created', 'lead.updated'],
          description: 'CRM',
          enabled: true,
          disabledReason: null,
          pausedUntil: null,
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: expect.stringMatching(ISO_MS),
        },
        secret: expect.stringMatching(SECRET),
      });
      const id = response.body.webhook.id;
      const [got, listed] = await Promise.all([as(tenant.key).get(`/api/v1/webhooks/${id}`).expect(200), as(tenant.key).get('/api/v1/webhooks').expect(200)]);
      expect(got.body).toEqual({ webhook: response.body.webhook });
      expect(listed.body.webhooks).toContainEqual(response.body.webhook);
      expect(got.text + listed.text).not.toContain(response.body.secret);
    });

    it.each(
      [
        ['http://hooks.example.com/in', 'must be an absolute https URL'],
        ['hooks.example.com/in', 'must be an absolute https URL'],
        ['https://user:pw@hooks.example.com/in', 'must not contain a user name or password'],
        ['https://10.0.0.1/in', URL_REFUSED],
        ['https://169.254.169.254/latest', URL_REFUSED],
        ['https://[::1]/in', URL_REFUSED],
        ['http://127.0.0.2/in', URL_REFUSED],
        ['https://[::127.0.0.1]/in', URL_REFUSED],
        ['https://[::ffff:10.0.0.1]/in', URL_REFUSED],
        ['https://[::ffff:a9fe:a9fe]/latest', URL_REFUSED],
        ['https://[0:0:0:0:0:0:7f00:2]/in', URL_REFUSED],
        ['https://hooks.example.com/in\r\nX-Injected: 1', CONTROL_CHARACTERS],
        ['https://hooks.example.com/i\nn', CONTROL_CHARACTERS],
        ['https://hooks.example.com/i\u0001n', CONTROL_CHARACTERS],
        [`https://example.com/${'a'.repeat(2_050)}`, 'must be at most 2048 characters'],
      ].map(([url, message]) => [url.length > 60 ? `${url.slice(0, 60)}...` : url, message, url]),
    )('refuses the URL %s: %s', async (_label, message, url) => {
      expectError(await create(tenant.key, { url }), 400, 'VALIDATION_ERROR', [{ field: 'url', message }]);
    });

    it('accepts http and loopback within WEBHOOK_ALLOWED_CIDRS', async () => {
      expect((await create(tenant.key, { url: 'http://127.0.0.1:4567/hook' })).status).toBe(201);
      expect((await create(tenant.key, { url: 'http://localhost:4567/hook' })).status).toBe(201);
    });

    it.each([
      [[], 'must have at least 1 entry'],
      [['lead.archived'], expect.stringMatching(/^each entry must be one of /)],
      [['lead.created', 'LEAD.CREATED'], expect.stringMatching(/^each entry must be one of /)],
      [['*', 'lead.created'], 'must be ["*"] alone or a list of event types'],
      [Array.from({ length: 11 }, () => 'lead.created'), 'must have at most 10 entries'],
      ['lead.created', 'must be an array of event types'],
    ])('refuses events %j', async (events, message) => {
      expectError(await create(tenant.key, { events }), 400, 'VALIDATION_ERROR', [{ field: 'events', message }]);
    });

    it('takes a description of up to 500 characters or null, and every event type of the catalogue or ["*"]', async () => {
      // At most 10 types an endpoint: every type, in endpoints of up to 10.
      for (let i = 0; i < WEBHOOK_EVENT_TYPES.length; i += 10) {
        const some = WEBHOOK_EVENT_TYPES.slice(i, i + 10);
        expect((await create(tenant.key, { events: some, description: 'd'.repeat(500) }).expect(201)).body.webhook).toMatchObject({
          events: some,
          description: 'd'.repeat(500),
        });
      }
      expect((await create(tenant.key, { events: ['*', '*'], description: null }).expect(201)).body.webhook).toMatchObject({
        events: ['*'],
        description: null,
      });
      expectError(await create(tenant.key, { description: 'd'.repeat(501) }), 400, 'VALIDATION_ERROR', [
        { field: 'description', message: 'must be at most 500 characters' },
      ]);
      expectError(await create(tenant.key, { url: null }), 400, 'VALIDATION_ERROR', [{ field: 'url', message: 'must be a string' }]);
    });

    it('never echoes the refused URL', async () => {
      const response = await create(tenant.key, { url: 'https://VALUE-7f3a9:pw@10.0.0.1/VALUE-7f3a9' });
      expect(response.status).toBe(400);
      expect(response.text).not.toContain('VALUE-7f3a9');
    });

    it('allows at most 20 endpoints per tenant', async () => {
      const crowded = await createTenant(t, { plan: 'enterprise' });
      const answers = await Promise.all(Array.from({ length: 22 }, () => create(crowded.key)));
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(20);
      for (const refused of answers.filter((answer) => answer.status !== 201)) expectError(refused, 403, 'PLAN_LIMIT_REACHED');
    });
  });

  describe('one endpoint', () => {
    let id: string;
    let secret: string;

    beforeAll(async () => {
      const created = (await create(tenant.key)).body;
      [id, secret] = [created.webhook.id, created.secret];
    });

    it('updates url, events and description; null clears the description', async () => {
      const updated = await as(tenant.key)
        .patch(`/api/v1/webhooks/${id}`)
        .send({ url: 'https://hooks.example.com/v2', events: ['*'], description: 'New' })
        .expect(200);
      expect(updated.body.webhook).toMatchObject({ id, url: 'https://hooks.example.com/v2', events: ['*'], description: 'New' });
      const cleared = await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ description: null }).expect(200);
      expect(cleared.body.webhook.description).toBeNull();
      expectError(await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ url: 'https://10.0.0.1/x' }), 400, 'VALIDATION_ERROR', [
        { field: 'url', message: URL_REFUSED },
      ]);
      expectError(await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ url: 'https://[::127.0.0.1]/x' }), 400, 'VALIDATION_ERROR', [
        { field: 'url', message: URL_REFUSED },
      ]);
      expectError(await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ url: 'https://hooks.example.com/x\r\nHost: evil' }), 400, 'VALIDATION_ERROR', [
        { field: 'url', message: CONTROL_CHARACTERS },
      ]);
    });

    it('disables (reason manual) and enables again', async () => {
      const off = await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ enabled: false }).expect(200);
      expect(off.body.webhook).toMatchObject({ enabled: false, disabledReason: 'manual' });
      const on = await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ enabled: true }).expect(200);
      expect(on.body.webhook).toMatchObject({ enabled: true, disabledReason: null });
    });

    it('rotates the secret, keeping the previous one for 24 hours', async () => {
      const { updatedAt: _before, ...unchanged } = (await as(tenant.key).get(`/api/v1/webhooks/${id}`).expect(200)).body.webhook;
      const rotated = await as(tenant.key).post(`/api/v1/webhooks/${id}/rotate-secret`).expect(200);
      expect(rotated.body).toEqual({ webhook: { ...unchanged, updatedAt: expect.stringMatching(ISO_MS) }, secret: expect.stringMatching(SECRET) });
      expect(rotated.body.secret).not.toBe(secret);
      expect((await as(tenant.key).get(`/api/v1/webhooks/${id}`).expect(200)).text).not.toContain(rotated.body.secret);
      const row = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
      expect(row.previousSecret).toBe(secret);
      expect(row.previousSecretExpiresAt!.getTime() - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
      secret = rotated.body.secret;
    });

    it('answers each of two concurrent rotations with a secret that keeps signing', async () => {
      const answers = await Promise.all([1, 2].map(() => as(tenant.key).post(`/api/v1/webhooks/${id}/rotate-secret`).expect(200)));
      const [a, b] = answers.map((answer) => answer.body.secret as string);
      expect(a).not.toBe(b);
      const row = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
      expect([row.secret, row.previousSecret].sort()).toEqual([a, b].sort());
      secret = row.secret;
    });

    it('queues a webhook.test delivery, lists deliveries newest first with a status filter, and retries one', async () => {
      const first = await as(tenant.key).post(`/api/v1/webhooks/${id}/test`).expect(202);
      expect(first.body).toEqual({
        delivery: {
          id: expect.stringMatching(UUID),
          eventId: expect.stringMatching(UUID),
          eventType: 'webhook.test',
          status: 'pending',
          attempts: 0,
          lastAttemptAt: null,
          nextAttemptAt: expect.stringMatching(ISO_MS),
          lastResponseStatus: null,
          lastError: null,
          createdAt: expect.stringMatching(ISO_MS),
        },
      });
      const second = (await as(tenant.key).post(`/api/v1/webhooks/${id}/test`).send({}).expect(202)).body.delivery;
      const event = await t.prisma.webhookEvent.findUniqueOrThrow({ where: { id: second.eventId } });
      expect(event).toMatchObject({ tenantId: tenant.id, type: 'webhook.test', data: { object: { id, message: 'A test event from the chatbot platform.' } } });

      const listed = await as(tenant.key).get(`/api/v1/webhooks/${id}/deliveries?limit=1`).expect(200);
      expect(listed.body).toEqual({ deliveries: [second], pagination: { total: 2, limit: 1, offset: 0, hasMore: true } });
      await t.prisma.webhookDelivery.update({ where: { id: second.id }, data: { status: 'failed', attempts: 10, nextAttemptAt: null } });
      expect(
        (await as(tenant.key).get(`/api/v1/webhooks/${id}/deliveries?status=failed`).expect(200)).body.deliveries.map((d: { id: string }) => d.id),
      ).toEqual([second.id]);
      expect(
        (await as(tenant.key).get(`/api/v1/webhooks/${id}/deliveries?status=pending`).expect(200)).body.deliveries.map((d: { id: string }) => d.id),
      ).toEqual([first.body.delivery.id]);

      // Held by an instance (an attempt in flight): no second, concurrent attempt.
      await t.prisma.webhookDelivery.update({ where: { id: second.id }, data: { leaseUntil: new Date(Date.now() + 60_000), lastError: 'timeout' } });
      expectError(await as(tenant.key).post(`/api/v1/webhooks/${id}/deliveries/${second.id}/retry`), 409, 'DELIVERY_IN_FLIGHT');
      expect((await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: second.id } })).status).toBe('failed');
      // A lease that has passed (its instance died) no longer counts.
      await t.prisma.webhookDelivery.update({ where: { id: second.id }, data: { leaseUntil: new Date(Date.now() - 1_000) } });
      const retriedAt = Date.now();
      const retried = await as(tenant.key).post(`/api/v1/webhooks/${id}/deliveries/${second.id}/retry`).expect(202);
      expect(retried.body).toEqual({
        delivery: { ...second, status: 'pending', attempts: 10, lastError: 'timeout', nextAttemptAt: expect.stringMatching(ISO_MS) },
      });
      expect(Math.abs(Date.parse(retried.body.delivery.nextAttemptAt) - retriedAt)).toBeLessThan(10_000);
      expect((await t.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: second.id } })).leaseUntil).toBeNull();
      expect((await as(tenant.key).get(`/api/v1/webhooks/${id}/deliveries?status=pending&limit=1&offset=1`).expect(200)).body).toEqual({
        deliveries: [expect.objectContaining({ id: first.body.delivery.id })],
        pagination: { total: 2, limit: 1, offset: 1, hasMore: false },
      });
      expectError(await as(tenant.key).get(`/api/v1/webhooks/${id}/deliveries?status=done`), 400, 'VALIDATION_ERROR', [
        { field: 'status', message: 'must be one of pending, succeeded, failed' },
      ]);
      expectError(await as(tenant.key).post(`/api/v1/webhooks/${id}/test`).send({ extra: 1 }), 400, 'VALIDATION_ERROR', [
        { field: 'extra', message: 'is not an allowed field' },
      ]);
    });

    it('queues a test event for a disabled endpoint too', async () => {
      await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ enabled: false }).expect(200);
      expect((await as(tenant.key).post(`/api/v1/webhooks/${id}/test`).expect(202)).body.delivery).toMatchObject({
        eventType: 'webhook.test',
        status: 'pending',
      });
      await as(tenant.key).patch(`/api/v1/webhooks/${id}`).send({ enabled: true }).expect(200);
    });

    it('is invisible to another tenant: 404 on get, update, delete, rotate, test, deliveries and retry', async () => {
      const delivery = (await as(tenant.key).post(`/api/v1/webhooks/${id}/test`).expect(202)).body.delivery;
      const theirs = as(other.key);
      for (const response of [
        await theirs.get(`/api/v1/webhooks/${id}`),
        await theirs.patch(`/api/v1/webhooks/${id}`).send({ enabled: false }),
        await theirs.delete(`/api/v1/webhooks/${id}`),
        await theirs.post(`/api/v1/webhooks/${id}/rotate-secret`),
        await theirs.post(`/api/v1/webhooks/${id}/test`),
        await theirs.get(`/api/v1/webhooks/${id}/deliveries`),
        await theirs.post(`/api/v1/webhooks/${id}/deliveries/${delivery.id}/retry`),
      ]) {
        expectError(response, 404, 'NOT_FOUND');
      }
      expect((await theirs.get('/api/v1/webhooks').expect(200)).body.webhooks.map((w: { id: string }) => w.id)).not.toContain(id);
      // Nor can a delivery of one endpoint be retried through another of the same tenant.
      const sibling = (await create(tenant.key)).body.webhook.id;
      expectError(await as(tenant.key).post(`/api/v1/webhooks/${sibling}/deliveries/${delivery.id}/retry`), 404, 'NOT_FOUND');
      expect((await as(tenant.key).get(`/api/v1/webhooks/${id}`).expect(200)).body.webhook.enabled).toBe(true);
    });

    it('answers 404 for malformed ids', async () => {
      expectError(await as(tenant.key).get('/api/v1/webhooks/not-a-uuid'), 404, 'NOT_FOUND');
      expectError(await as(tenant.key).post(`/api/v1/webhooks/${id}/deliveries/not-a-uuid/retry`), 404, 'NOT_FOUND');
    });

    it('deletes the endpoint with its deliveries', async () => {
      await as(tenant.key).delete(`/api/v1/webhooks/${id}`).expect(204);
      expectError(await as(tenant.key).get(`/api/v1/webhooks/${id}`), 404, 'NOT_FOUND');
      expect(await t.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(0);
      expectError(await as(tenant.key).delete(`/api/v1/webhooks/${id}`), 404, 'NOT_FOUND');
    });
  });

  describe('without WEBHOOK_ALLOWED_CIDRS', () => {
    let strict: TestApp;
    let strictKey: string;
    beforeAll(async () => {
      // Its own connection: closing an app closes its connection.
      strict = await createTestApp();
      strictKey = (await createTenant(strict, { plan: 'enterprise' })).key;
    });
    afterAll(() => strict.close());

    it.each([
      ['http://127.0.0.1:4567/hook', URL_REFUSED],
      ['https://127.0.0.1/hook', URL_REFUSED],
      ['https://localhost/hook', URL_REFUSED],
      ['https://api.localhost/hook', URL_REFUSED],
      ['https://[::ffff:10.0.0.1]/hook', URL_REFUSED],
      ['https://0x7f.1/hook', URL_REFUSED],
    ])('refuses %s', async (url, message) => {
      const response = await strict
        .http()
        .post('/api/v1/webhooks')
        .set('X-API-Key', strictKey)
        .send({ url, events: ['*'] });
      expectError(response, 400, 'VALIDATION_ERROR', [{ field: 'url', message }]);
    });
  });

  it('needs the webhooks:manage scope and a secret key', async () => {
    const narrow = await createKey(t, tenant.id, { scopes: ['leads:read', 'leads:write'] });
    const publicKey = await createKey(t, tenant.id, { type: 'public' });
    for (const key of [narrow.key, publicKey.key]) {
      expectError(await as(key).get('/api/v1/webhooks'), 403, 'INSUFFICIENT_SCOPE');
      expectError(await create(key), 403, 'INSUFFICIENT_SCOPE');
    }
  });

  it('audits endpoint changes with the API key as the actor', async () => {
    const created = (await create(tenant.key)).body.webhook;
    await as(tenant.key).post(`/api/v1/webhooks/${created.id}/rotate-secret`).expect(200);
    const events = (await t.admin().get(`/admin/v1/tenants/${tenant.id}/audit-log?limit=2`).expect(200)).body.events;
    expect(events.map((e: { action: string; actor: string; targetId: string }) => [e.action, e.actor, e.targetId])).toEqual([
      ['webhook.secret_rotated', `api-key:${tenant.keyId}`, created.id],
      ['webhook.created', `api-key:${tenant.keyId}`, created.id],
    ]);
  });
});
