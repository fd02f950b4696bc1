import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DEFERRED_JOIN_OFFSET } from '../../src/leads/leads.repository';
import { expectError, ISO_MS } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';

type Lead = Record<string, unknown> & { id: string };

describe('GET /api/v1/leads', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const list = (key: string, query: Record<string, string> | string = {}) => {
    const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
    return t
      .http()
      .get(`/api/v1/leads${search ? `?${search}` : ''}`)
      .set('X-API-Key', key);
  };

  /** Pins a lead's timestamps so that ordering and date windows are exact. */
  const setTimes = async (id: string, createdAt: string, updatedAt = createdAt) => {
    await t.prisma.lead.update({ where: { id }, data: { createdAt: new Date(createdAt), updatedAt: new Date(updatedAt) } });
  };

  const expectValidationError = (response: Response, fields: string[]) =>
    expectError(
      response,
      400,
      'VALIDATION_ERROR',
      fields.map((field) => ({ field, message: expect.stringMatching(/\S/) })),
    );

  const ids = (response: Response) => (response.body.leads as Lead[]).map((lead) => lead.id);

  describe('response shape', () => {
    let tenant: TestTenant;
    let expected: Lead[];

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'enterprise' });
      const bot = await createBot(t, tenant.id);
      const full = await createLead(t, tenant.key, {
        name: 'Ada Lovelace',
        email: 'ada@analytical.example',
        phone: '+44 20 7946 0000',
        company: 'Analytical Engines Ltd',
        message: 'Please call me back.',
        botId: bot.id,
        tags: ['vip', 'uk'],
      });
      const minimal = await createLead(t, tenant.key, { name: 'Min Imal', email: 'min@example.com' });
      const conversation = await recordConversation(t, tenant.id, bot.id, {
        lead: { name: 'Widget Visitor', email: 'visitor@example.com', phone: '555-0100', company: 'Visiting Co', message: 'From the chat' },
      });
      await setTimes(full.id, '2026-04-01T10:00:00.000Z', '2026-04-01T10:00:00.000Z');
      await setTimes(minimal.id, '2026-04-02T10:00:00.000Z', '2026-04-02T11:30:00.250Z');
      await setTimes(conversation.leadId!, '2026-04-03T10:00:00.000Z');
      expected = [
        {
          id: conversation.leadId!,
          name: 'Widget Visitor',
          email: 'visitor@example.com',
          phone: '555-0100',
          company: 'Visiting Co',
          message: 'From the chat',
          botId: bot.id,
          conversationId: conversation.id,
          source: 'widget',
          status: 'new',
          tags: [],
          createdAt: '2026-04-03T10:00:00.000Z',
          updatedAt: '2026-04-03T10:00:00.000Z',
        },
        { ...minimal, createdAt: '2026-04-02T10:00:00.000Z', updatedAt: '2026-04-02T11:30:00.250Z' },
        { ...full, createdAt: '2026-04-01T10:00:00.000Z', updatedAt: '2026-04-01T10:00:00.000Z' },
      ];
    });

    it('answers whole Lead objects, newest first, with the default page (limit 20, offset 0)', async () => {
      const response = await list(tenant.key).expect(200);
      expect(response.body).toEqual({ leads: expected, pagination: { total: 3, limit: 20, offset: 0, hasMore: false } });
    });

    it('gives API leads source api, status new, conversationId null and the exact field types of SPEC 2.2', async () => {
      const response = await list(tenant.key).expect(200);
      const [, minimal, full] = response.body.leads as Lead[];
      expect(Object.keys(full).sort()).toEqual(
        ['botId', 'company', 'conversationId', 'createdAt', 'email', 'id', 'message', 'name', 'phone', 'source', 'status', 'tags', 'updatedAt'].sort(),
      );
      expect(full).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        name: 'Ada Lovelace',
        email: 'ada@analytical.example',
        phone: '+44 20 7946 0000',
        company: 'Analytical Engines Ltd',
        message: 'Please call me back.',
        botId: expect.any(String),
        conversationId: null,
        source: 'api',
        status: 'new',
        tags: ['vip', 'uk'],
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
      });
      expect(minimal).toMatchObject({ source: 'api', status: 'new', conversationId: null, botId: null, tags: [] });
    });

    it('answers an empty page for a tenant without leads, never leads of other tenants', async () => {
      const empty = await createTenant(t, { plan: 'enterprise' });
      const response = await list(empty.key).expect(200);
      expect(response.body).toEqual({ leads: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
    });

    it('requires the leads:read scope', async () => {
      const writeOnly = await createKey(t, tenant.id, { scopes: ['leads:write'] });
      const response = await list(writeOnly.key).expect(403);
      expect(response.body).toEqual({
        error: { code: 'INSUFFICIENT_SCOPE', message: expect.any(String), status: 403, requestId: response.headers['x-request-id'] },
      });
      const readOnly = await createKey(t, tenant.id, { scopes: ['leads:read'] });
      expect((await list(readOnly.key).expect(200)).body.pagination.total).toBe(3);
    });
  });

  describe('ordering and paging', () => {
    let tenant: TestTenant;
    /** The 23 leads in the order the API must answer: createdAt desc, then id desc. */
    let expectedOrder: string[];

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'enterprise' });
      const created: { id: string; createdAt: string }[] = [];
      for (let i = 0; i < 23; i += 1) {
        const lead = await createLead(t, tenant.key, { name: `Pager ${i}` });
        // Groups of four share a timestamp, so ties sit across page boundaries; the first-made
        // leads get the newest timestamps, so creation order and id order both disagree with the answer.
        const createdAt = new Date(Date.UTC(2026, 0, 1) + (10 - Math.floor(i / 4)) * 60_000).toISOString();
        await setTimes(lead.id, createdAt);
        created.push({ id: lead.id, createdAt });
      }
      expectedOrder = [...created]
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
        .map((lead) => lead.id);
    });

    it('orders newest first by createdAt, then by id descending', async () => {
      const response = await list(tenant.key, { limit: '100' }).expect(200);
      expect(ids(response)).toEqual(expectedOrder);
      expect(response.body.pagination).toEqual({ total: 23, limit: 100, offset: 0, hasMore: false });
    });

    it('breaks a createdAt tie by id descending', async () => {
      const tie = await createTenant(t, { plan: 'enterprise' });
      const leads: Lead[] = [];
      for (let i = 0; i < 6; i += 1) leads.push(await createLead(t, tie.key, { name: `Tie ${i}` }));
      await t.prisma.lead.updateMany({
        where: { id: { in: leads.map((lead) => lead.id) } },
        data: { createdAt: new Date('2026-02-02T02:02:02.222Z'), updatedAt: new Date('2026-02-02T02:02:02.222Z') },
      });
      const response = await list(tie.key).expect(200);
      const byIdDesc = leads
        .map((lead) => lead.id)
        .sort()
        .reverse();
      expect(ids(response)).toEqual(byIdDesc);
      expect(response.body.leads.every((lead: Lead) => lead.createdAt === '2026-02-02T02:02:02.222Z')).toBe(true);
    });

    it('puts a newer createdAt ahead of a larger id', async () => {
      const tenantB = await createTenant(t, { plan: 'enterprise' });
      const first = await createLead(t, tenantB.key, { name: 'Made first' });
      const second = await createLead(t, tenantB.key, { name: 'Made second' });
      const [smaller, larger] = [first.id, second.id].sort();
      await setTimes(smaller, '2026-05-05T05:05:05.001Z');
      await setTimes(larger, '2026-05-05T05:05:05.000Z');
      expect(ids(await list(tenantB.key).expect(200))).toEqual([smaller, larger]);
    });

    it('uses limit 20 and offset 0 by default', async () => {
      const response = await list(tenant.key).expect(200);
      expect(ids(response)).toEqual(expectedOrder.slice(0, 20));
      expect(response.body.pagination).toEqual({ total: 23, limit: 20, offset: 0, hasMore: true });
    });

    it('walks every lead exactly once when following hasMore with limit 5', async () => {
      const seen: string[] = [];
      const pages: unknown[] = [];
      let offset = 0;
      for (let guard = 0; guard < 10; guard += 1) {
        const response = await list(tenant.key, { limit: '5', offset: String(offset) }).expect(200);
        pages.push(response.body.pagination);
        seen.push(...ids(response));
        if (!response.body.pagination.hasMore) break;
        offset += 5;
      }
      expect(pages).toEqual([
        { total: 23, limit: 5, offset: 0, hasMore: true },
        { total: 23, limit: 5, offset: 5, hasMore: true },
        { total: 23, limit: 5, offset: 10, hasMore: true },
        { total: 23, limit: 5, offset: 15, hasMore: true },
        { total: 23, limit: 5, offset: 20, hasMore: false },
      ]);
      expect(new Set(seen).size).toBe(23);
      expect(seen).toEqual(expectedOrder);
    });

    it('accepts limit 1 and limit 100', async () => {
      const one = await list(tenant.key, { limit: '1' }).expect(200);
      expect(one.body).toEqual({ leads: [expect.objectContaining({ id: expectedOrder[0] })], pagination: { total: 23, limit: 1, offset: 0, hasMore: true } });
      const hundred = await list(tenant.key, { limit: '100' }).expect(200);
      expect(hundred.body.leads).toHaveLength(23);
      expect(hundred.body.pagination).toEqual({ total: 23, limit: 100, offset: 0, hasMore: false });
    });

    it('answers the last lead alone at offset total-1, with hasMore false', async () => {
      const response = await list(tenant.key, { offset: '22' }).expect(200);
      expect(ids(response)).toEqual([expectedOrder[22]]);
      expect(response.body.pagination).toEqual({ total: 23, limit: 20, offset: 22, hasMore: false });
    });

    it.each(['23', '24', '1000'])('answers an empty page with the right total at offset %s', async (offset) => {
      const response = await list(tenant.key, { offset, limit: '5' }).expect(200);
      expect(response.body).toEqual({ leads: [], pagination: { total: 23, limit: 5, offset: Number(offset), hasMore: false } });
    });

    it('sets hasMore true when exactly one lead is left after the page', async () => {
      const response = await list(tenant.key, { offset: '17', limit: '5' }).expect(200);
      expect(ids(response)).toEqual(expectedOrder.slice(17, 22));
      expect(response.body.pagination).toEqual({ total: 23, limit: 5, offset: 17, hasMore: true });
    });

    describe('limit and offset validation', () => {
      it.each([
        ['abc', 'limit=abc'],
        ['1.5', 'limit=1.5'],
        ['0', 'limit=0'],
        ['101', 'limit=101'],
        ['-1', 'limit=-1'],
        ['an empty string', 'limit='],
        ['a duplicated parameter', 'limit=1&limit=2'],
      ])('rejects limit %s with 400 VALIDATION_ERROR on limit', async (_label, query) => {
        expectValidationError(await list(tenant.key, query), ['limit']);
      });

      it.each([
        ['-1', 'offset=-1'],
        ['1.5', 'offset=1.5'],
        ['abc', 'offset=abc'],
        ['an empty string', 'offset='],
        ['a duplicated parameter', 'offset=0&offset=5'],
      ])('rejects offset %s with 400 VALIDATION_ERROR on offset', async (_label, query) => {
        expectValidationError(await list(tenant.key, query), ['offset']);
      });

      it('names every invalid parameter', async () => {
        expectValidationError(await list(tenant.key, 'limit=0&offset=-1'), ['limit', 'offset']);
      });

      it('rejects an unknown query parameter, naming it', async () => {
        expectValidationError(await list(tenant.key, 'limit=5&sort=name'), ['sort']);
      });

      it('rejects the page parameter of other APIs as unknown', async () => {
        expectValidationError(await list(tenant.key, 'page=2'), ['page']);
      });
    });
  });

  describe('botId, from and to filters', () => {
    let tenant: TestTenant;
    let bot1: string;
    let bot2: string;
    const lead: Record<'D' | 'C' | 'B' | 'N' | 'A' | 'E', string> = { D: '', C: '', B: '', N: '', A: '', E: '' };
    let foreignBot: string;

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'enterprise' });
      bot1 = (await createBot(t, tenant.id)).id;
      bot2 = (await createBot(t, tenant.id)).id;
      const fixtures: [keyof typeof lead, string, string | undefined, string][] = [
        ['E', 'Epsilon', bot1, '2026-03-09T23:59:59.999Z'],
        ['A', 'Alpha', bot1, '2026-03-10T00:00:00.000Z'],
        ['N', 'Nobot', undefined, '2026-03-10T06:00:00.000Z'],
        ['B', 'Alpha Two', bot2, '2026-03-10T12:00:00.000Z'],
        ['C', 'Gamma', bot1, '2026-03-10T23:59:59.999Z'],
        ['D', 'Alpha Three', bot1, '2026-03-11T00:00:00.000Z'],
      ];
      for (const [label, name, botId, createdAt] of fixtures) {
        const created = await createLead(t, tenant.key, { name, ...(botId ? { botId } : {}) });
        await setTimes(created.id, createdAt);
        lead[label] = created.id;
      }
      const other = await createTenant(t, { plan: 'enterprise' });
      foreignBot = (await createBot(t, other.id)).id;
      await createLead(t, other.key, { name: 'Alpha Foreign', botId: foreignBot });
    });

    const expectLeads = async (query: Record<string, string>, labels: (keyof typeof lead)[]) => {
      const response = await list(tenant.key, query).expect(200);
      expect({ query, ids: ids(response) }).toEqual({ query, ids: labels.map((label) => lead[label]) });
      expect(response.body.pagination).toEqual({ total: labels.length, limit: 20, offset: 0, hasMore: false });
    };

    it('answers every lead without filters', async () => {
      await expectLeads({}, ['D', 'C', 'B', 'N', 'A', 'E']);
    });

    it('filters by botId', async () => {
      await expectLeads({ botId: bot1 }, ['D', 'C', 'A', 'E']);
      await expectLeads({ botId: bot2 }, ['B']);
    });

    it("answers an empty page for another tenant's bot or an unknown bot", async () => {
      await expectLeads({ botId: foreignBot }, []);
      await expectLeads({ botId: randomUUID() }, []);
    });

    it.each(['not-a-uuid', '123', `${randomUUID()}x`, ''])('rejects botId %p with 400 on botId', async (botId) => {
      expectValidationError(await list(tenant.key, { botId }), ['botId']);
    });

    it('includes a lead exactly at from and one exactly at to (date-times)', async () => {
      await expectLeads({ from: '2026-03-10T00:00:00.000Z', to: '2026-03-10T12:00:00.000Z' }, ['B', 'N', 'A']);
    });

    it('excludes leads one millisecond outside the window', async () => {
      await expectLeads({ from: '2026-03-10T00:00:00.001Z', to: '2026-03-10T11:59:59.999Z' }, ['N']);
    });

    it('accepts from equal to to and includes the lead at that instant', async () => {
      await expectLeads({ from: '2026-03-10T12:00:00.000Z', to: '2026-03-10T12:00:00.000Z' }, ['B']);
    });

    it('accepts date-times with an offset and without milliseconds', async () => {
      await expectLeads({ from: '2026-03-10T01:00:00+01:00', to: '2026-03-10T00:00:00Z' }, ['A']);
      await expectLeads({ from: '2026-03-10T13:00:00.000+01:00' }, ['D', 'C', 'B']);
      await expectLeads({ to: '2026-03-10T12:00:00Z' }, ['B', 'N', 'A', 'E']);
    });

    it('treats a date-only from as the start of that day', async () => {
      await expectLeads({ from: '2026-03-10' }, ['D', 'C', 'B', 'N', 'A']);
      await expectLeads({ from: '2026-03-11' }, ['D']);
    });

    it('treats a date-only to as covering the whole day', async () => {
      await expectLeads({ to: '2026-03-10' }, ['C', 'B', 'N', 'A', 'E']);
      await expectLeads({ to: '2026-03-09' }, ['E']);
      await expectLeads({ from: '2026-03-10', to: '2026-03-10' }, ['C', 'B', 'N', 'A']);
      await expectLeads({ from: '2026-03-11', to: '2026-03-11' }, ['D']);
      await expectLeads({ from: '2026-03-10T12:00:00.000Z', to: '2026-03-10' }, ['C', 'B']);
    });

    it.each(['2026-02-30', 'yesterday', '2026-13-01', '2026-03-10T25:00:00Z', '2026-03-32', '', '1700000000'])(
      'rejects the date %p as from and as to with 400 naming the field',
      async (value) => {
        expectValidationError(await list(tenant.key, { from: value }), ['from']);
        expectValidationError(await list(tenant.key, { to: value }), ['to']);
      },
    );

    it.each([
      ['2026-03-11', '2026-03-10'],
      ['2026-03-10T12:00:00.001Z', '2026-03-10T12:00:00.000Z'],
      ['2026-03-11T00:00:00.000Z', '2026-03-10'],
    ])('rejects from=%s later than to=%s with 400', async (from, to) => {
      const response = await list(tenant.key, { from, to });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'VALIDATION_ERROR',
          message: expect.any(String),
          status: 400,
          requestId: response.headers['x-request-id'],
          details: [{ field: expect.stringMatching(/^(from|to)$/), message: expect.stringMatching(/\S/) }],
        },
      });
    });

    it('combines botId, from, to and search', async () => {
      await expectLeads({ botId: bot1, from: '2026-03-10', to: '2026-03-10' }, ['C', 'A']);
      await expectLeads({ botId: bot1, from: '2026-03-10', to: '2026-03-10', search: 'alpha' }, ['A']);
      await expectLeads({ from: '2026-03-10', search: 'ALPHA' }, ['D', 'B', 'A']);
      await expectLeads({ botId: bot2, from: '2026-03-11', search: 'alpha' }, []);
      await expectLeads({ botId: bot1, to: '2026-03-10T00:00:00.000Z', search: 'a' }, ['A', 'E']);
    });

    it('pages a filtered result with the filtered total', async () => {
      const response = await list(tenant.key, { botId: bot1, limit: '2', offset: '1' }).expect(200);
      expect(ids(response)).toEqual([lead.C, lead.A]);
      expect(response.body.pagination).toEqual({ total: 4, limit: 2, offset: 1, hasMore: true });
    });
  });

  describe(`deep pages (offset ${DEFERRED_JOIN_OFFSET} and more: ids first, then rows)`, () => {
    let tenant: TestTenant;
    let bot: string;
    /** Every lead of the tenant, newest first (createdAt desc, then id desc). */
    let expected: { id: string; botId: string | null }[];

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'enterprise' });
      bot = (await createBot(t, tenant.id)).id;
      // Written directly: 40 leads share each createdAt, so ties are broken by id across pages.
      const base = Date.parse('2026-01-01T00:00:00.000Z');
      await t.prisma.lead.createMany({
        data: Array.from({ length: DEFERRED_JOIN_OFFSET + 60 }, (_, i) => ({
          tenantId: tenant.id,
          botId: i % 10 ? bot : null,
          name: `Deep ${i}`,
          email: `deep${i}@example.com`,
          source: 'api' as const,
          tags: [],
          createdAt: new Date(base + Math.floor(i / 40) * 1000),
        })),
      });
      expected = await t.prisma.lead.findMany({
        where: { tenantId: tenant.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: { id: true, botId: true },
      });
    });

    it.each([
      [DEFERRED_JOIN_OFFSET - 10, 20],
      [DEFERRED_JOIN_OFFSET, 7],
      [DEFERRED_JOIN_OFFSET + 50, 100],
    ])('answers offset %p limit %p in order, with whole leads and the total', async (offset, limit) => {
      const response = await list(tenant.key, { offset: String(offset), limit: String(limit) }).expect(200);
      expect(ids(response)).toEqual(expected.slice(offset, offset + limit).map((lead) => lead.id));
      expect(response.body.leads[0]).toEqual(
        expect.objectContaining({ name: expect.stringMatching(/^Deep \d+$/), email: expect.any(String), status: 'new', tags: [] }),
      );
      expect(response.body.pagination).toEqual({ total: expected.length, limit, offset, hasMore: offset + limit < expected.length });
    });

    it('applies botId, dates and search on a deep page', async () => {
      const ofBot = expected.filter((lead) => lead.botId === bot);
      expect(ofBot.length).toBeGreaterThan(DEFERRED_JOIN_OFFSET);
      const byBot = await list(tenant.key, { botId: bot, offset: String(DEFERRED_JOIN_OFFSET), limit: '10' }).expect(200);
      expect(ids(byBot)).toEqual(ofBot.slice(DEFERRED_JOIN_OFFSET).map((lead) => lead.id));
      expect(byBot.body.pagination).toEqual({ total: ofBot.length, limit: 10, offset: DEFERRED_JOIN_OFFSET, hasMore: false });
      const byDates = await list(tenant.key, {
        from: '2026-01-01T00:00:00.000Z',
        to: '2026-01-01T00:00:13.000Z',
        offset: String(DEFERRED_JOIN_OFFSET + 20),
        limit: '10',
      }).expect(200);
      // Seconds 0..13 hold leads 0..559; newest first, so the window is the whole list.
      expect(ids(byDates)).toEqual(expected.slice(DEFERRED_JOIN_OFFSET + 20, DEFERRED_JOIN_OFFSET + 30).map((lead) => lead.id));
      const bySearch = await list(tenant.key, { search: 'deep', offset: String(DEFERRED_JOIN_OFFSET + 55), limit: '10' }).expect(200);
      expect(ids(bySearch)).toEqual(expected.slice(DEFERRED_JOIN_OFFSET + 55).map((lead) => lead.id));
    });

    it('answers an empty page beyond the last lead', async () => {
      const response = await list(tenant.key, { offset: String(DEFERRED_JOIN_OFFSET + 60) }).expect(200);
      expect(response.body).toEqual({ leads: [], pagination: { total: expected.length, limit: 20, offset: DEFERRED_JOIN_OFFSET + 60, hasMore: false } });
    });
  });

  describe('pagination.total without search or dates (kept by the Lead_count trigger)', () => {
    let tenant: TestTenant;
    let bot1: string;
    let bot2: string;
    let other: TestTenant;

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'enterprise' });
      bot1 = (await createBot(t, tenant.id)).id;
      bot2 = (await createBot(t, tenant.id)).id;
      for (const botId of [bot1, bot1, bot1, bot2, bot2, undefined, undefined]) await createLead(t, tenant.key, botId ? { botId } : {});
      await recordConversation(t, tenant.id, bot2, { lead: { name: 'Chat Lead', email: 'chat@example.com' } });
      other = await createTenant(t, { plan: 'enterprise' });
      await createLead(t, other.key, { botId: (await createBot(t, other.id)).id });
    });

    /** The totals the API answers, against a count of the rows themselves. */
    const expectTotals = async (expected: { all: number; bot1: number; bot2: number }) => {
      const totals = {
        all: (await list(tenant.key, { limit: '1' }).expect(200)).body.pagination.total,
        bot1: (await list(tenant.key, { botId: bot1, limit: '1' }).expect(200)).body.pagination.total,
        bot2: (await list(tenant.key, { botId: bot2, limit: '1' }).expect(200)).body.pagination.total,
      };
      const rows = {
        all: await t.prisma.lead.count({ where: { tenantId: tenant.id } }),
        bot1: await t.prisma.lead.count({ where: { tenantId: tenant.id, botId: bot1 } }),
        bot2: await t.prisma.lead.count({ where: { tenantId: tenant.id, botId: bot2 } }),
      };
      expect({ totals, rows }).toEqual({ totals: expected, rows: expected });
    };

    it('counts API leads with and without a bot and leads captured in chats', async () => {
      await expectTotals({ all: 8, bot1: 3, bot2: 3 });
      expect((await list(other.key).expect(200)).body.pagination.total).toBe(1);
    });

    it('follows a lead moved to another bot, a deleted lead and a deleted bot', async () => {
      const [moved, deleted] = await t.prisma.lead.findMany({ where: { tenantId: tenant.id, botId: bot1 }, take: 2 });
      await t.prisma.lead.update({ where: { id: moved.id }, data: { botId: bot2 } });
      await expectTotals({ all: 8, bot1: 2, bot2: 4 });
      await t.prisma.lead.delete({ where: { id: deleted.id } });
      await expectTotals({ all: 7, bot1: 1, bot2: 4 });
      // Deleting a bot keeps its leads, without a bot (ON DELETE SET NULL).
      await t.prisma.bot.delete({ where: { id: bot2 } });
      await expectTotals({ all: 7, bot1: 1, bot2: 0 });
      expect((await list(other.key).expect(200)).body.pagination.total).toBe(1);
    });

    it("answers 0 for the nil UUID as botId (the counters' key for leads without a bot)", async () => {
      const response = await list(tenant.key, { botId: '00000000-0000-0000-0000-000000000000' }).expect(200);
      expect(response.body).toEqual({ leads: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
    });

    it("deletes a tenant with its bots, leads and counters, and leaves other tenants' totals alone", async () => {
      const doomed = await createTenant(t, { plan: 'enterprise' });
      const doomedBot = (await createBot(t, doomed.id)).id;
      for (let i = 0; i < 5; i++) await createLead(t, doomed.key, { botId: doomedBot });
      await createLead(t, doomed.key);
      await recordConversation(t, doomed.id, doomedBot, { lead: { name: 'Chat Lead', email: 'chat@example.com' } });
      expect((await list(doomed.key).expect(200)).body.pagination.total).toBe(7);
      // The cascade deletes the bots first, setting their leads' botId to null, then the leads.
      await t.prisma.tenant.delete({ where: { id: doomed.id } });
      expect(await t.prisma.lead.count({ where: { tenantId: doomed.id } })).toBe(0);
      expect(await t.prisma.leadCounter.count({ where: { tenantId: doomed.id } })).toBe(0);
      expect((await list(other.key).expect(200)).body.pagination.total).toBe(1);
    });
  });

  describe('search', () => {
    let tenant: TestTenant;
    const lead: Record<string, string> = {};

    beforeAll(async () => {
      tenant = await createTenant(t, { plan: 'enterprise' });
      const fixtures: [string, Record<string, unknown>][] = [
        ['byName', { name: 'Zelda Quuxley', email: 'first@alpha.test', company: 'Northwind' }],
        ['byEmail', { name: 'Bob', email: 'MixedCase.Person@Example.ORG' }],
        ['byCompany', { name: 'Carol', email: 'carol@beta.test', company: 'ACME Rockets GmbH' }],
        ['orionName', { name: 'Orion Smith', email: 'os@delta.test' }],
        ['orionCompany', { name: 'Dave', email: 'dave@delta.test', company: 'Orion Labs' }],
        ['percent', { name: 'Discount 50% off', email: 'p@gamma.test' }],
        ['fifty', { name: 'Discount 50 percent off', email: 'q@gamma.test' }],
        ['underscore', { name: 'snake_case', email: 'u@gamma.test' }],
        ['snakeX', { name: 'snakeXcase', email: 'v@gamma.test' }],
        ['backslash', { name: 'back\\slash', email: 'w@gamma.test' }],
        ['noBackslash', { name: 'backslash', email: 'x@gamma.test' }],
        ['long', { name: 'Longco', email: 'l@gamma.test', company: 'y'.repeat(200) }],
        ['zoe', { name: 'Zoë Ångström', email: 'zoe@kappa.test', company: 'Fjord AB' }],
        ['twoLines', { name: 'Two\nLines', email: 'tl@kappa.test' }],
        ['istanbul', { name: 'Ayşe', email: 'ayse@kappa.test', company: 'İstanbul Trading' }],
        ['kelvin', { name: '\u212aelvin Labs', email: 'kl@kappa.test' }],
      ];
      for (const [label, body] of fixtures) lead[label] = (await createLead(t, tenant.key, body)).id;
      const other = await createTenant(t, { plan: 'enterprise' });
      await createLead(t, other.key, { name: 'Zelda Quuxley', email: 'zelda@other.test', company: 'ACME Rockets GmbH' });
    });

    const expectFound = async (search: string, labels: string[]) => {
      const response = await list(tenant.key, { search, limit: '100' }).expect(200);
      expect({ search, ids: [...ids(response)].sort() }).toEqual({ search, ids: labels.map((label) => lead[label]).sort() });
      expect(response.body.pagination).toEqual({ total: labels.length, limit: 100, offset: 0, hasMore: false });
    };

    it('matches the name case-insensitively as a substring', async () => {
      await expectFound('zELDA', ['byName']);
      await expectFound('uxle', ['byName']);
    });

    it('matches the e-mail case-insensitively as a substring', async () => {
      await expectFound('mixedcase.person@example', ['byEmail']);
      await expectFound('EXAMPLE.org', ['byEmail']);
    });

    it('matches the company case-insensitively as a substring', async () => {
      await expectFound('acme rockets', ['byCompany']);
      await expectFound('northWIND', ['byName']);
    });

    it('matches any of name, e-mail and company', async () => {
      await expectFound('orion', ['orionName', 'orionCompany']);
      await expectFound('delta.test', ['orionName', 'orionCompany']);
    });

    it('matches a term with non-ASCII letters, folding its ASCII letters', async () => {
      await expectFound('Ångström', ['zoe']);
      await expectFound('zOë', ['zoe']);
    });

    it('never matches across the name, e-mail and company of one lead', async () => {
      await expectFound('ström\nzoe@', []);
      await expectFound('kappa.test\nfjord', []);
      await expectFound('lines\ntl@', []);
    });

    it('matches a term with a line break inside one field', async () => {
      await expectFound('two\nLINES', ['twoLines']);
    });

    it('finds İ and the Kelvin sign by i and k, as a UTF-8 database folds them', async () => {
      await expectFound('istanbul', ['istanbul']);
      await expectFound('İSTANBUL', ['istanbul']);
      await expectFound('kelvin', ['kelvin']);
    });

    it('matches what the fields say after an update made in the database', async () => {
      const renamed = await createLead(t, tenant.key, { name: 'Renata', email: 'renata@kappa.test', company: 'Old Widgets' });
      await t.prisma.lead.update({ where: { id: renamed.id }, data: { company: 'Renamed Widgets' } });
      const found = await list(tenant.key, { search: 'renamed widgets' }).expect(200);
      expect(ids(found)).toEqual([renamed.id]);
      expect((await list(tenant.key, { search: 'old widgets' }).expect(200)).body.leads).toEqual([]);
    });

    it('answers an empty page when nothing matches', async () => {
      const response = await list(tenant.key, { search: 'no-such-lead-anywhere' }).expect(200);
      expect(response.body).toEqual({ leads: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
    });

    it('treats % as a literal character', async () => {
      await expectFound('%', ['percent']);
      await expectFound('50%', ['percent']);
      await expectFound('50% off', ['percent']);
    });

    it('treats _ as a literal character', async () => {
      await expectFound('_', ['underscore']);
      await expectFound('snake_case', ['underscore']);
    });

    it('treats \\ as a literal character', async () => {
      await expectFound('\\', ['backslash']);
      await expectFound('back\\slash', ['backslash']);
      await expectFound('k\\s', ['backslash']);
    });

    it('rejects an empty search with 400 on search', async () => {
      expectValidationError(await list(tenant.key, 'search='), ['search']);
    });

    it('accepts a search of 200 characters and rejects 201', async () => {
      await expectFound('Y'.repeat(200), ['long']);
      const response = await list(tenant.key, { search: 'y'.repeat(201) });
      expectValidationError(response, ['search']);
      expect(JSON.stringify(response.body)).not.toContain('y'.repeat(201));
    });

    it('rejects a duplicated search parameter', async () => {
      expectValidationError(await list(tenant.key, 'search=a&search=b'), ['search']);
    });
  });
});
