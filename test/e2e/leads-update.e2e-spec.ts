import { expectError, ISO_MS } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createLead, createTenant, TestTenant } from '../support/factories';

type Lead = Record<string, unknown> & { id: string; updatedAt: string };

describe('Leads: PATCH of every field', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let botId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    other = await createTenant(t, { plan: 'enterprise' });
    botId = (await createBot(t, tenant.id)).id;
    // An endpoint listening to lead.updated, so that the outbox shows the events (the worker is off in tests).
    await t
      .http()
      .post('/api/v1/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: 'https://hooks.example.com/in', events: ['lead.updated'] })
      .expect(201);
  });
  afterAll(() => t.close());

  const patch = (id: string, body: unknown, key = tenant.key) =>
    t
      .http()
      .patch(`/api/v1/leads/${id}`)
      .set('X-API-Key', key)
      .send(body as object);
  const fullLead = () =>
    createLead(t, tenant.key, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      company: 'Engines Ltd',
      message: 'Call me',
      tags: ['vip', 'uk'],
      botId,
    }) as Promise<Lead>;
  const updatesOf = async (leadId: string) =>
    (await t.prisma.webhookEvent.findMany({ where: { tenantId: tenant.id, type: 'lead.updated' }, orderBy: { createdAt: 'asc' } }))
      .map((event) => event.data as { object: Lead; previousAttributes: Record<string, unknown> })
      .filter((data) => data.object.id === leadId);

  it('changes every field at once, moves updatedAt and sends lead.updated with the previous values', async () => {
    const lead = await fullLead();
    const body = {
      name: ' Ada King ',
      email: 'ada.king@example.com',
      phone: '+44 1',
      company: 'Analytical',
      message: 'Later',
      tags: [' new ', 'list'],
      status: 'contacted',
    };
    const response = await patch(lead.id, body).expect(200);
    const expected = {
      ...lead,
      name: 'Ada King',
      email: 'ada.king@example.com',
      phone: '+44 1',
      company: 'Analytical',
      message: 'Later',
      tags: ['new', 'list'],
      status: 'contacted',
      updatedAt: expect.stringMatching(ISO_MS),
    };
    expect(response.body).toEqual({ lead: expected });
    expect(Date.parse(response.body.lead.updatedAt)).toBeGreaterThan(Date.parse(lead.updatedAt));
    expect((await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead).toEqual(response.body.lead);
    expect(await updatesOf(lead.id)).toEqual([
      {
        object: response.body.lead,
        previousAttributes: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          phone: '+44 20 7946 0000',
          company: 'Engines Ltd',
          message: 'Call me',
          tags: ['vip', 'uk'],
          status: 'new',
          updatedAt: lead.updatedAt,
        },
      },
    ]);
  });

  it.each([
    ['null', null],
    ['an empty string', ''],
    ['blanks', '   '],
  ])('clears phone, company and message sent as %s', async (_label, value) => {
    const lead = await fullLead();
    const response = await patch(lead.id, { phone: value, company: value, message: value }).expect(200);
    expect(response.body.lead).toMatchObject({ phone: null, company: null, message: null, name: 'Ada Lovelace', tags: ['vip', 'uk'] });
  });

  it('replaces the tags, and clears them with [] or null', async () => {
    const lead = await fullLead();
    expect((await patch(lead.id, { tags: ['one'] }).expect(200)).body.lead.tags).toEqual(['one']);
    expect((await patch(lead.id, { tags: [] }).expect(200)).body.lead.tags).toEqual([]);
    await patch(lead.id, { tags: ['two'] }).expect(200);
    expect((await patch(lead.id, { tags: null }).expect(200)).body.lead.tags).toEqual([]);
  });

  it('changes nothing, keeps updatedAt and sends no event when every value is the current one', async () => {
    const lead = await fullLead();
    const response = await patch(lead.id, {
      name: 'Ada Lovelace',
      email: ' ada@example.com ',
      tags: ['vip', 'uk'],
      status: 'new',
      company: 'Engines Ltd',
    }).expect(200);
    expect(response.body).toEqual({ lead });
    expect(await updatesOf(lead.id)).toEqual([]);
  });

  it('sends only the changed fields as previousAttributes', async () => {
    const lead = await fullLead();
    const response = await patch(lead.id, { name: 'Ada Lovelace', company: 'Other' }).expect(200);
    expect(await updatesOf(lead.id)).toEqual([{ object: response.body.lead, previousAttributes: { company: 'Engines Ltd', updatedAt: lead.updatedAt } }]);
  });

  it('finds the lead by its new name and no longer by its old one', async () => {
    const lead = await fullLead();
    await patch(lead.id, { name: 'Grace Zyxwvutsr' }).expect(200);
    const search = async (term: string) =>
      (await t.http().get(`/api/v1/leads?search=${term}`).set('X-API-Key', tenant.key).expect(200)).body.leads.map((l: Lead) => l.id);
    expect(await search('zyxwvutsr')).toEqual([lead.id]);
    expect(await search('lovelace')).not.toContain(lead.id);
  });

  it.each([
    [{ name: null }, 'name', 'must be a string'],
    [{ name: '' }, 'name', 'must be 1 to 200 characters'],
    [{ email: null }, 'email', 'must be a string'],
    [{ email: 'nope' }, 'email', 'must be a valid e-mail address'],
    [{ phone: 'p'.repeat(51) }, 'phone', 'must be at most 50 characters'],
    [{ tags: 'vip' }, 'tags', 'must be an array of strings'],
    [{ status: null }, 'status', 'must be one of new, contacted, qualified, unqualified, converted'],
    [{ botId: null }, 'botId', 'is not an allowed field'],
    [{ conversationId: null }, 'conversationId', 'is not an allowed field'],
  ])('refuses %j with one detail and changes nothing', async (body, field, message) => {
    const lead = await fullLead();
    expectError(await patch(lead.id, body), 400, 'VALIDATION_ERROR', [{ field, message }]);
    expect((await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead).toEqual(lead);
  });

  it('refuses an illegal move with 409 and then changes none of the other fields either', async () => {
    const lead = await fullLead();
    expectError(await patch(lead.id, { status: 'converted', name: 'Changed' }), 409, 'INVALID_STATUS_TRANSITION');
    expect((await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead).toEqual(lead);
  });

  it('answers 204 without a body to a key without leads:read, and still changes the lead', async () => {
    const writeOnly = await createKey(t, tenant.id, { scopes: ['leads:write'] });
    const lead = await fullLead();
    const response = await patch(lead.id, { company: 'Hidden' }, writeOnly.key).expect(204);
    expect(response.text).toBe('');
    expect((await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead.company).toBe('Hidden');
  });

  it("applies two concurrent updates of different fields both (one after the other, each on the other's result)", async () => {
    const lead = await fullLead();
    await Promise.all([patch(lead.id, { company: 'First' }).expect(200), patch(lead.id, { phone: '+1 555' }).expect(200)]);
    expect((await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200)).body.lead).toMatchObject({
      company: 'First',
      phone: '+1 555',
    });
    expect(await updatesOf(lead.id)).toHaveLength(2);
  });

  it("is 404 for another tenant's lead, and changes nothing there", async () => {
    const theirs = (await createLead(t, other.key, { name: 'Theirs' })) as Lead;
    expectError(await patch(theirs.id, { name: 'Mine now' }), 404, 'NOT_FOUND');
    expect((await t.http().get(`/api/v1/leads/${theirs.id}`).set('X-API-Key', other.key).expect(200)).body.lead).toEqual(theirs);
  });

  it('checks the body before the lead: an empty body for an unknown lead is 400', async () => {
    expectError(await patch('00000000-0000-7000-8000-000000000000', {}), 400, 'VALIDATION_ERROR', [
      { field: 'body', message: 'must have at least one field to change' },
    ]);
    expectError(await patch('00000000-0000-7000-8000-000000000000', { name: 'X' }), 404, 'NOT_FOUND');
  });
});
