import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import request from 'supertest';
import { ISO_MS, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createLead, createTenant, TestTenant } from '../support/factories';
import { LEAD_MOVES as ALLOWED, LEAD_STATUSES as STATUSES, type LeadStatusName as Status } from '../support/lead-status-machine';

type Lead = Record<string, unknown> & { id: string };

/** A valid address of exactly `length` characters: a 64-character local part and labels of at most 63. */
function emailOfLength(length: number): string {
  let domain = 'com';
  const domainLength = length - 65;
  while (domain.length < domainLength) domain = `${'d'.repeat(Math.min(63, domainLength - domain.length - 1))}.${domain}`;
  const email = `${'l'.repeat(64)}@${domain}`;
  if (email.length !== length || domain.includes('..')) throw new Error(`built an e-mail of ${email.length} characters, wanted ${length}`);
  return email;
}

describe('Leads: create, get and change status', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let bot: { id: string };
  let foreign: TestTenant;
  let foreignBot: { id: string };

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    bot = await createBot(t, tenant.id);
    foreign = await createTenant(t, { plan: 'enterprise' });
    foreignBot = await createBot(t, foreign.id);
  });
  afterAll(() => t.close());

  const post = (key = tenant.key) => t.http().post('/api/v1/leads').set('X-API-Key', key);
  const getLead = (id: string, key = tenant.key) => t.http().get(`/api/v1/leads/${id}`).set('X-API-Key', key);
  const patch = (id: string, key = tenant.key) => t.http().patch(`/api/v1/leads/${id}`).set('X-API-Key', key);

  const total = async (key = tenant.key): Promise<number> => {
    const response = await t.http().get('/api/v1/leads?limit=1').set('X-API-Key', key).expect(200);
    return response.body.pagination.total;
  };

  const envelope = (response: Response, code: string, status: number, fields?: string[]) => ({
    error: {
      code,
      message: expect.stringMatching(/\S/),
      status,
      requestId: response.headers['x-request-id'],
      ...(fields ? { details: fields.map((field) => ({ field, message: expect.stringMatching(/\S/) })) } : {}),
    },
  });

  /** Details in field order, since the contract does not fix their order. */
  const byField = (body: { error?: { details?: { field: string }[] } }) =>
    body.error?.details ? { ...body, error: { ...body.error, details: [...body.error.details].sort((a, b) => a.field.localeCompare(b.field)) } } : body;

  /** Sends a create that must fail, checks the envelope, and checks that no lead was stored. */
  const expectRejected = async (send: (test: request.Test) => request.Test, status: number, code: string, fields?: string[]): Promise<Response> => {
    const before = await total();
    const response = await send(post());
    expect(response.status).toBe(status);
    expect(byField(response.body)).toEqual(envelope(response, code, status, fields && [...fields].sort()));
    expect(await total()).toBe(before);
    return response;
  };

  const valid = (overrides: Record<string, unknown> = {}) => ({ name: 'Grace Hopper', email: `grace-${randomUUID().slice(0, 8)}@navy.example`, ...overrides });
  const rejectBody = (body: unknown, fields: string[]) => expectRejected((test) => test.send(body as object), 400, 'VALIDATION_ERROR', fields);
  const accept = async (body: Record<string, unknown>): Promise<Lead> => {
    const response = await post().send(body);
    expect({ status: response.status, body: response.body }).toEqual({ status: 201, body: { lead: expect.any(Object) } });
    return response.body.lead;
  };

  describe('POST /api/v1/leads', () => {
    it('answers 201 with Location and the whole lead: source api, status new, no conversation, no tags', async () => {
      const before = await total();
      const startedAt = Date.now();
      const response = await post().send({ name: 'Grace Hopper', email: 'grace@navy.example' });
      const finishedAt = Date.now();
      expect(response.status).toBe(201);
      const lead = response.body.lead;
      expect(response.body).toEqual({
        lead: {
          id: expect.stringMatching(UUID),
          name: 'Grace Hopper',
          email: 'grace@navy.example',
          phone: null,
          company: null,
          message: null,
          botId: null,
          conversationId: null,
          source: 'api',
          status: 'new',
          tags: [],
          createdAt: expect.stringMatching(ISO_MS),
          updatedAt: lead.createdAt,
        },
      });
      expect(response.headers.location).toBe(`/api/v1/leads/${lead.id}`);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const createdAt = Date.parse(lead.createdAt);
      expect(createdAt).toBeGreaterThanOrEqual(startedAt - 1000);
      expect(createdAt).toBeLessThanOrEqual(finishedAt + 1000);
      expect(await total()).toBe(before + 1);
    });

    it('stores every optional field, trimmed, with the bot and tags', async () => {
      const response = await post()
        .send({
          name: '  Ada Lovelace \t',
          email: ' ada@analytical.example\n',
          phone: '  +44 20 7946 0000 ',
          company: ' Analytical Engines ',
          message: '\n Please call me back. \n',
          botId: bot.id,
          tags: ['  vip ', 'uk', ' 2026 '],
        })
        .expect(201);
      expect(response.body.lead).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Ada Lovelace',
        email: 'ada@analytical.example',
        phone: '+44 20 7946 0000',
        company: 'Analytical Engines',
        message: 'Please call me back.',
        botId: bot.id,
        conversationId: null,
        source: 'api',
        status: 'new',
        tags: ['vip', 'uk', '2026'],
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: response.body.lead.createdAt,
      });
      expect(response.headers.location).toBe(`/api/v1/leads/${response.body.lead.id}`);
    });

    it('answers tags [] when an empty array is sent', async () => {
      expect((await accept(valid({ tags: [] }))).tags).toEqual([]);
    });

    describe('name', () => {
      it('accepts 200 code points (emoji) and stores them unchanged', async () => {
        const name = '😀'.repeat(200);
        expect((await accept(valid({ name }))).name).toBe(name);
      });

      it('rejects 201 code points (emoji)', async () => {
        await rejectBody(valid({ name: '😀'.repeat(201) }), ['name']);
      });

      it('counts characters after trimming: 200 plus surrounding spaces is accepted', async () => {
        const name = 'n'.repeat(200);
        expect((await accept(valid({ name: `   ${name}   ` }))).name).toBe(name);
      });

      it('accepts a single character', async () => {
        expect((await accept(valid({ name: 'X' }))).name).toBe('X');
      });

      it.each([
        ['201 characters', 'n'.repeat(201)],
        ['only spaces', '   '],
        ['empty', ''],
        ['a number', 5],
        ['null', null],
        ['an array', ['Grace']],
      ])('rejects a name that is %s', async (_label, name) => {
        await rejectBody(valid({ name }), ['name']);
      });

      it('rejects a missing name', async () => {
        await rejectBody({ email: 'missing-name@example.com' }, ['name']);
      });
    });

    describe('email', () => {
      it('accepts 254 characters', async () => {
        const email = emailOfLength(254);
        expect((await accept(valid({ email }))).email).toBe(email);
      });

      it('rejects 255 characters', async () => {
        await rejectBody(valid({ email: emailOfLength(255) }), ['email']);
      });

      it.each([
        ['not an address', 'not-an-email'],
        ['without a local part', '@example.com'],
        ['with two @', 'two@@example.com'],
        ['with a space inside', 'sp ace@example.com'],
        ['only spaces', '   '],
        ['empty', ''],
        ['null', null],
        ['a number', 42],
      ])('rejects an e-mail that is %s', async (_label, email) => {
        await rejectBody(valid({ email }), ['email']);
      });

      it('rejects a missing e-mail', async () => {
        await rejectBody({ name: 'No Mail' }, ['email']);
      });
    });

    describe.each([
      ['phone', 50],
      ['company', 200],
      ['message', 5000],
    ])('%s', (field, max) => {
      it(`accepts ${max} characters`, async () => {
        const value = 'p'.repeat(max);
        expect((await accept(valid({ [field]: value })))[field]).toBe(value);
      });

      it(`counts after trimming: ${max} characters with surrounding spaces are accepted`, async () => {
        const value = 'q'.repeat(max);
        expect((await accept(valid({ [field]: `  ${value}  ` })))[field]).toBe(value);
      });

      it(`rejects ${max + 1} characters`, async () => {
        await rejectBody(valid({ [field]: 'p'.repeat(max + 1) }), [field]);
      });

      it.each([5, true, {}, ['x']])('rejects the non-string %p', async (value) => {
        await rejectBody(valid({ [field]: value }), [field]);
      });
    });

    describe('botId', () => {
      it("accepts one of the tenant's bots", async () => {
        expect((await accept(valid({ botId: bot.id }))).botId).toBe(bot.id);
      });

      it("rejects another tenant's bot exactly like an unknown one, with a detail on botId", async () => {
        const foreignResponse = await rejectBody(valid({ botId: foreignBot.id }), ['botId']);
        const unknownResponse = await rejectBody(valid({ botId: randomUUID() }), ['botId']);
        expect({ ...foreignResponse.body.error, requestId: undefined }).toEqual({ ...unknownResponse.body.error, requestId: undefined });
        expect(await total(foreign.key)).toBe(0);
      });

      it.each([['not-a-uuid'], ['123'], [''], [`${randomUUID()}-0`], [42], [['x']]])('rejects %p, which is not a UUID', async (botId) => {
        await rejectBody(valid({ botId }), ['botId']);
      });
    });

    describe('tags', () => {
      it('accepts 20 tags', async () => {
        const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
        expect((await accept(valid({ tags }))).tags).toEqual(tags);
      });

      it('accepts a tag of 50 characters, also with surrounding spaces', async () => {
        const tag = 't'.repeat(50);
        expect((await accept(valid({ tags: [tag, `  ${'u'.repeat(50)} `] }))).tags).toEqual([tag, 'u'.repeat(50)]);
      });

      it.each([
        ['21 entries', Array.from({ length: 21 }, (_, i) => `tag-${i}`)],
        ['an entry of 51 characters', ['ok', 't'.repeat(51)]],
        ['an empty entry', ['ok', '']],
        ['an entry of only spaces', ['   ']],
        ['a number entry', ['ok', 5]],
        ['a null entry', [null]],
        ['an object entry', [{ name: 'x' }]],
        ['a nested array', [['x']]],
        ['a string instead of an array', 'vip'],
        ['an object instead of an array', { 0: 'vip' }],
        ['a number', 3],
        ['a boolean', true],
      ])('rejects tags with %s', async (_label, tags) => {
        await rejectBody(valid({ tags }), ['tags']);
      });
    });

    describe('body shape', () => {
      it.each(['status', 'source', 'conversationId', 'id', 'createdAt', 'unknownField'])('rejects the unknown or read-only field %s', async (field) => {
        await rejectBody(valid({ [field]: field === 'status' ? 'qualified' : 'x' }), [field]);
      });

      it('names every broken field at once', async () => {
        await rejectBody({ name: 5, email: null, extra: true }, ['name', 'email', 'extra']);
      });

      it('rejects an empty JSON object, naming both required fields', async () => {
        await rejectBody({}, ['name', 'email']);
      });

      it('rejects a JSON array body', async () => {
        await expectRejected((test) => test.set('Content-Type', 'application/json').send(JSON.stringify([valid()])), 400, 'VALIDATION_ERROR', ['body']);
      });

      it.each([
        ['a JSON string', '"Grace Hopper"'],
        ['null', 'null'],
        ['a number', '42'],
        ['true', 'true'],
      ])('rejects a body that is %s with 400 VALIDATION_ERROR', async (_label, raw) => {
        const before = await total();
        const response = await post().set('Content-Type', 'application/json').send(raw);
        expect(response.status).toBe(400);
        expect(response.body.error).toEqual(
          expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/\S/), status: 400, requestId: response.headers['x-request-id'] }),
        );
        expect(await total()).toBe(before);
      });

      it('rejects an empty application/json body with 400 naming the required fields', async () => {
        await expectRejected((test) => test.set('Content-Type', 'application/json').send(''), 400, 'VALIDATION_ERROR', ['name', 'email']);
      });

      it.each([
        ['truncated', '{"name": "Grace", "email": '],
        ['with a trailing comma', '{"name": "Grace", "email": "g@example.com",}'],
        ['single-quoted', "{'name': 'Grace', 'email': 'g@example.com'}"],
      ])('rejects malformed JSON (%s) with 400 VALIDATION_ERROR', async (_label, raw) => {
        const before = await total();
        const response = await post().set('Content-Type', 'application/json').send(raw);
        expect(response.status).toBe(400);
        expect(response.body.error).toEqual(
          expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/\S/), status: 400, requestId: response.headers['x-request-id'] }),
        );
        expect(await total()).toBe(before);
      });

      it('answers malformed or non-object JSON with a detail on the body, as every VALIDATION_ERROR has', async () => {
        for (const [raw, detail] of [
          ['{"name": "Grace", "email": ', 'must be valid JSON'],
          ['null', 'must be a JSON object'],
          ['"Grace Hopper"', 'must be a JSON object'],
          ['42', 'must be a JSON object'],
        ]) {
          const response = await post().set('Content-Type', 'application/json').send(raw);
          expect({ raw, body: response.body }).toEqual({
            raw,
            body: {
              error: {
                code: 'VALIDATION_ERROR',
                message: expect.stringMatching(/\S/),
                status: 400,
                requestId: response.headers['x-request-id'],
                details: [{ field: 'body', message: detail }],
              },
            },
          });
        }
      });

      it.each([
        ['text/plain', JSON.stringify({ name: 'Grace', email: 'g@example.com' })],
        ['application/x-www-form-urlencoded', 'name=Grace&email=g%40example.com'],
        ['application/xml', '<lead><name>Grace</name></lead>'],
      ])('rejects Content-Type %s with 415 UNSUPPORTED_MEDIA_TYPE', async (type, raw) => {
        await expectRejected((test) => test.set('Content-Type', type).send(raw), 415, 'UNSUPPORTED_MEDIA_TYPE');
      });

      it('accepts application/json with a charset', async () => {
        const response = await post().set('Content-Type', 'application/json; charset=utf-8').send(JSON.stringify(valid())).expect(201);
        expect(response.body.lead.source).toBe('api');
      });

      it('rejects a body over 64 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
        const raw = sizedBody(64 * 1024 + 1);
        await expectRejected((test) => test.set('Content-Type', 'application/json').send(raw), 413, 'PAYLOAD_TOO_LARGE');
      });

      it('reads a body of exactly 64 KiB (then rejects the over-long message with 400)', async () => {
        const raw = sizedBody(64 * 1024);
        await expectRejected((test) => test.set('Content-Type', 'application/json').send(raw), 400, 'VALIDATION_ERROR', ['message']);
      });

      it('rejects an unknown query parameter', async () => {
        await expectRejected((test) => test.query({ dryRun: 'true' }).send(valid()), 400, 'VALIDATION_ERROR', ['dryRun']);
      });
    });

    it('requires the leads:write scope', async () => {
      const readOnly = await createKey(t, tenant.id, { scopes: ['leads:read'] });
      await expectRejected((test) => test.set('X-API-Key', readOnly.key).send(valid()), 403, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('GET /api/v1/leads/:id', () => {
    it('answers { lead } equal to what POST answered', async () => {
      const created = await post()
        .send(valid({ phone: '555', company: 'Co', message: 'Hi', botId: bot.id, tags: ['a'] }))
        .expect(201);
      const response = await getLead(created.body.lead.id).expect(200);
      expect(response.body).toEqual(created.body);
    });

    it.each([
      ['an unknown UUID', () => randomUUID()],
      ['a malformed id', () => 'not-a-uuid'],
      ['a UUID with trailing characters', () => `${randomUUID()}0`],
    ])('answers 404 NOT_FOUND for %s', async (_label, id) => {
      const response = await getLead(id()).expect(404);
      expect(response.body).toEqual(envelope(response, 'NOT_FOUND', 404));
    });

    it('rejects an unknown query parameter with 400 naming it', async () => {
      const created = await createLead(t, tenant.key);
      const response = await t.http().get(`/api/v1/leads/${created.id}?expand=bot`).set('X-API-Key', tenant.key);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(envelope(response, 'VALIDATION_ERROR', 400, ['expand']));
    });

    it("answers 404 for another tenant's lead", async () => {
      const theirs = await createLead(t, foreign.key);
      const response = await getLead(theirs.id).expect(404);
      expect(response.body).toEqual(envelope(response, 'NOT_FOUND', 404));
      await getLead(theirs.id, foreign.key).expect(200);
    });
  });

  describe('PATCH /api/v1/leads/:id', () => {
    const leadIn = async (status: Status): Promise<Lead> => {
      const lead = await createLead(t, tenant.key);
      if (status !== 'new') await t.prisma.lead.update({ where: { id: lead.id }, data: { status } });
      const response = await getLead(lead.id).expect(200);
      expect(response.body.lead.status).toBe(status);
      return response.body.lead;
    };

    const pairs = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as [Status, Status]));
    const allowed = pairs.filter(([from, to]) => ALLOWED[from].includes(to));
    const illegal = pairs.filter(([from, to]) => !ALLOWED[from].includes(to));

    it.each(allowed)('moves %s -> %s with 200 and the whole lead', async (from, to) => {
      const lead = await leadIn(from);
      const past = '2026-01-01T00:00:00.000Z';
      await t.prisma.lead.update({ where: { id: lead.id }, data: { updatedAt: new Date(past) } });
      const response = await patch(lead.id).send({ status: to });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ lead: { ...lead, status: to, updatedAt: expect.stringMatching(ISO_MS) } });
      expect(Date.parse(response.body.lead.updatedAt)).toBeGreaterThan(Date.parse(past));
      expect((await getLead(lead.id).expect(200)).body).toEqual(response.body);
    });

    it.each(illegal)('refuses %s -> %s with 409 INVALID_STATUS_TRANSITION and leaves the lead unchanged', async (from, to) => {
      const lead = await leadIn(from);
      const response = await patch(lead.id).send({ status: to });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(envelope(response, 'INVALID_STATUS_TRANSITION', 409));
      expect((await getLead(lead.id).expect(200)).body).toEqual({ lead });
    });

    it('walks new -> contacted -> qualified -> converted, after which nothing moves', async () => {
      const lead = await createLead(t, tenant.key);
      for (const status of ['contacted', 'qualified', 'converted']) {
        const response = await patch(lead.id).send({ status });
        expect({ status: response.status, lead: response.body.lead?.status }).toEqual({ status: 200, lead: status });
      }
      for (const status of ['new', 'contacted', 'qualified', 'unqualified']) {
        const response = await patch(lead.id).send({ status });
        expect({ status: response.status, code: response.body.error?.code }).toEqual({ status: 409, code: 'INVALID_STATUS_TRANSITION' });
      }
      expect((await getLead(lead.id).expect(200)).body.lead.status).toBe('converted');
    });

    it('walks new -> unqualified -> new -> qualified -> unqualified', async () => {
      const lead = await createLead(t, tenant.key);
      for (const status of ['unqualified', 'new', 'qualified', 'unqualified']) {
        const response = await patch(lead.id).send({ status });
        expect({ status: response.status, lead: response.body.lead?.status }).toEqual({ status: 200, lead: status });
      }
    });

    it.each(STATUSES)('answers 200 with the lead unchanged when the status stays %s', async (status) => {
      const lead = await leadIn(status);
      const response = await patch(lead.id).send({ status });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ lead });
    });

    it.each([
      ['an unknown value', { status: 'open' }],
      ['the wrong case', { status: 'NEW' }],
      ['an empty string', { status: '' }],
      ['a number', { status: 1 }],
      ['null', { status: null }],
    ])('rejects a status that is %s with 400 on status', async (_label, body) => {
      const lead = await createLead(t, tenant.key);
      const response = await patch(lead.id).send(body);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(envelope(response, 'VALIDATION_ERROR', 400, ['status']));
      expect((await getLead(lead.id).expect(200)).body.lead.status).toBe('new');
    });

    it('rejects an empty body with 400 on body', async () => {
      const lead = await createLead(t, tenant.key);
      const response = await patch(lead.id).send({});
      expect(response.body).toEqual(envelope(response, 'VALIDATION_ERROR', 400, ['body']));
    });

    it("rejects fields that are not the lead's own to change", async () => {
      const lead = await createLead(t, tenant.key, { name: 'Keep Me' });
      const response = await patch(lead.id).send({ status: 'contacted', name: 'Changed', botId: bot.id, source: 'import' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(envelope(response, 'VALIDATION_ERROR', 400, ['botId', 'source']));
      expect((await getLead(lead.id).expect(200)).body.lead).toEqual(expect.objectContaining({ name: 'Keep Me', status: 'new' }));
    });

    it('rejects a non-JSON body with 415', async () => {
      const lead = await createLead(t, tenant.key);
      const response = await patch(lead.id).set('Content-Type', 'text/plain').send('status=contacted');
      expect(response.status).toBe(415);
      expect(response.body).toEqual(envelope(response, 'UNSUPPORTED_MEDIA_TYPE', 415));
    });

    it.each([
      ['an unknown UUID', () => randomUUID()],
      ['a malformed id', () => 'not-a-uuid'],
    ])('answers 404 NOT_FOUND for %s', async (_label, id) => {
      const response = await patch(id()).send({ status: 'contacted' });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(envelope(response, 'NOT_FOUND', 404));
    });

    it("answers 404 for another tenant's lead and leaves it unchanged", async () => {
      const theirs = await createLead(t, foreign.key);
      const response = await patch(theirs.id).send({ status: 'contacted' });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(envelope(response, 'NOT_FOUND', 404));
      expect((await getLead(theirs.id, foreign.key).expect(200)).body.lead.status).toBe('new');
    });

    it('validates the body before looking the lead up (400 before 404)', async () => {
      const response = await patch(randomUUID()).send({ status: 'open' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(envelope(response, 'VALIDATION_ERROR', 400, ['status']));
    });

    it('requires the leads:write scope', async () => {
      const lead = await createLead(t, tenant.key);
      const readOnly = await createKey(t, tenant.id, { scopes: ['leads:read'] });
      const response = await patch(lead.id, readOnly.key).send({ status: 'contacted' });
      expect(response.status).toBe(403);
      expect(response.body).toEqual(envelope(response, 'INSUFFICIENT_SCOPE', 403));
      expect((await getLead(lead.id).expect(200)).body.lead.status).toBe('new');
    });
  });
});

/** A valid-looking create body of exactly `bytes` bytes, padded in `message`. */
function sizedBody(bytes: number): string {
  const base = JSON.stringify({ name: 'Big', email: 'big@example.com', message: '' });
  const raw = JSON.stringify({ name: 'Big', email: 'big@example.com', message: 'm'.repeat(bytes - Buffer.byteLength(base)) });
  if (Buffer.byteLength(raw) !== bytes) throw new Error(`built ${Buffer.byteLength(raw)} bytes, wanted ${bytes}`);
  return raw;
}
