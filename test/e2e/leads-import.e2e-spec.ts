import { randomUUID } from 'node:crypto';
import { expectError, ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';

type Lead = Record<string, unknown> & { id: string };

describe('Leads: POST /api/v1/leads/import', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let botId: string;
  let foreignBotId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    botId = (await createBot(t, tenant.id)).id;
    const other = await createTenant(t, { plan: 'enterprise' });
    foreignBotId = (await createBot(t, other.id)).id;
  });
  afterAll(() => t.close());

  const importLeads = (body: unknown, key = tenant.key) =>
    t
      .http()
      .post('/api/v1/leads/import')
      .set('X-API-Key', key)
      .send(body as object);
  const entries = (count: number, extra: Record<string, unknown> = {}) =>
    Array.from({ length: count }, (_, i) => ({ name: `Imported ${i}`, email: `imported-${i}-${randomUUID().slice(0, 8)}@example.com`, ...extra }));
  const totalLeads = async (query = '') =>
    (await t.http().get(`/api/v1/leads?limit=1${query}`).set('X-API-Key', tenant.key).expect(200)).body.pagination.total as number;

  it('creates the leads in the order sent, with source import, and lists, counts and finds them', async () => {
    const before = await totalLeads();
    const beforeBot = await totalLeads(`&botId=${botId}`);
    const sent = [
      { name: ' Zed Quux-Import ', email: 'zed@example.com', phone: '+1 555', company: 'Acme', message: 'from the old CRM', tags: [' a ', 'b'], botId },
      { name: 'Second', email: 'second@example.com', botId: null, tags: null, phone: '' },
      ...entries(3),
    ];
    const response = await importLeads({ leads: sent }).expect(201);
    expect(response.body.imported).toBe(5);
    expect(response.body.leads).toHaveLength(5);
    expect(response.body.leads[0]).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Zed Quux-Import',
      email: 'zed@example.com',
      phone: '+1 555',
      company: 'Acme',
      message: 'from the old CRM',
      botId,
      conversationId: null,
      source: 'import',
      status: 'new',
      tags: ['a', 'b'],
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    expect(response.body.leads[1]).toMatchObject({ name: 'Second', botId: null, tags: [], phone: null, source: 'import' });
    expect(response.body.leads.slice(2).map((lead: Lead) => lead.name)).toEqual(sent.slice(2).map((lead) => lead.name));
    for (const lead of response.body.leads)
      expect((await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead).toEqual(lead);
    expect(await totalLeads()).toBe(before + 5);
    expect(await totalLeads(`&botId=${botId}`)).toBe(beforeBot + 1);
    expect((await t.http().get('/api/v1/leads?search=quux-import').set('X-API-Key', tenant.key).expect(200)).body.leads.map((lead: Lead) => lead.id)).toEqual([
      response.body.leads[0].id,
    ]);
  });

  it('imports 1,000 leads in one request (a body over 64 KiB)', async () => {
    const before = await totalLeads();
    const leads = entries(1_000, { message: 'm'.repeat(200) });
    expect(Buffer.byteLength(JSON.stringify({ leads }))).toBeGreaterThan(64 * 1024);
    expect((await importLeads({ leads }).expect(201)).body.imported).toBe(1_000);
    expect(await totalLeads()).toBe(before + 1_000);
  });

  it('answers only the number to a key without leads:read', async () => {
    const writeOnly = await createKey(t, tenant.id, { scopes: ['leads:write'] });
    expect((await importLeads({ leads: entries(2) }, writeOnly.key).expect(201)).body).toEqual({ imported: 2 });
  });

  it('refuses the whole import when any entry is invalid, naming each broken field, and stores nothing', async () => {
    const before = await totalLeads();
    const leads = entries(20);
    leads[3] = { ...leads[3], email: 'not-an-email' };
    leads[17] = { ...leads[17], name: '', source: 'widget' } as (typeof leads)[number];
    const response = await importLeads({ leads });
    expectError(response, 400, 'VALIDATION_ERROR', [
      { field: 'leads[3].email', message: 'must be a valid e-mail address' },
      { field: 'leads[17].source', message: 'is not an allowed field' },
      { field: 'leads[17].name', message: 'must be 1 to 200 characters' },
    ]);
    expect(await totalLeads()).toBe(before);
  });

  it("refuses another tenant's or an unknown bot on the entries that name it, and stores nothing", async () => {
    const before = await totalLeads();
    const leads = [...entries(2), { ...entries(1)[0], botId: foreignBotId }, { ...entries(1)[0], botId }, { ...entries(1)[0], botId: randomUUID() }];
    expectError(await importLeads({ leads }), 400, 'VALIDATION_ERROR', [
      { field: 'leads[2].botId', message: 'must be the id of one of your bots' },
      { field: 'leads[4].botId', message: 'must be the id of one of your bots' },
    ]);
    expect(await totalLeads()).toBe(before);
  });

  it.each([
    [{}, 'leads', 'must be an array of leads'],
    [{ leads: [] }, 'leads', 'must have at least 1 entry'],
    [{ leads: 'many' }, 'leads', 'must be an array of leads'],
    [{ leads: [1] }, 'leads[0]', 'each entry must be a lead object'],
    [{ leads: [{ name: 'A', email: 'a@example.com' }], dryRun: true }, 'dryRun', 'is not an allowed field'],
  ])('refuses %j', async (body, field, message) => {
    const response = await importLeads(body);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toContainEqual({ field, message });
  });

  it('refuses more than 1,000 entries', async () => {
    expectError(await importLeads({ leads: entries(1_001) }), 400, 'VALIDATION_ERROR', [{ field: 'leads', message: 'must have at most 1000 entries' }]);
  });

  it('refuses a body over 4 MiB with 413', async () => {
    const leads = entries(1_000, { message: 'm'.repeat(4_500) });
    expectError(await importLeads({ leads }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('imports once per Idempotency-Key: a retry gets the first answer, another body with the key is 409', async () => {
    const before = await totalLeads();
    const key = randomUUID();
    const body = { leads: entries(3) };
    const first = await importLeads(body).set('Idempotency-Key', key).expect(201);
    const retry = await importLeads(body).set('Idempotency-Key', key).expect(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await totalLeads()).toBe(before + 3);
    expectError(await importLeads({ leads: entries(1) }).set('Idempotency-Key', key), 409, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('sends one lead.created event per imported lead, committed with the leads', async () => {
    const listener = await createTenant(t, { plan: 'enterprise' });
    await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', listener.key)
      .send({ url: 'https://hooks.example.com/in', events: ['lead.created'] })
      .expect(201);
    const imported = (
      await t
        .http()
        .post('/api/v1/leads/import')
        .set('X-API-Key', listener.key)
        .send({ leads: entries(25) })
        .expect(201)
    ).body.leads as Lead[];
    const events = await t.prisma.webhookEvent.findMany({ where: { tenantId: listener.id, type: 'lead.created' }, include: { deliveries: true } });
    expect(events.map((event) => (event.data as { object: Lead }).object).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...imported].sort((a, b) => a.id.localeCompare(b.id)),
    );
    for (const event of events) expect(event.deliveries).toHaveLength(1);
  });

  it('needs leads:write', async () => {
    const readOnly = await createKey(t, tenant.id, { scopes: ['leads:read'] });
    expectError(await importLeads({ leads: entries(1) }, readOnly.key), 403, 'INSUFFICIENT_SCOPE');
  });
});
