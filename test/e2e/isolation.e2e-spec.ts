import { randomUUID } from 'node:crypto';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';

const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();

/** Everything one tenant owns: two bots, two conversations (one with a captured lead), two API leads. */
interface World {
  tenant: TestTenant;
  bots: string[];
  conversations: string[];
  endedConversation: string;
  leads: string[];
  capturedLead: string;
  apiLead: string;
  email: string;
  document: string;
}

async function buildWorld(t: TestApp, label: string): Promise<World> {
  const tenant = await createTenant(t, { plan: 'business' });
  const bot1 = await createBot(t, tenant.id, { name: `${label} Bot One` });
  const bot2 = await createBot(t, tenant.id, { name: `${label} Bot Two`, isActive: false });
  const email = `isolation-${label.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`;
  const chat = await recordConversation(t, tenant.id, bot1.id, {
    visitorId: `visitor-${label}`,
    lead: { name: `${label} Chat Lead`, email, company: 'Isolation Corp' },
  });
  const ended = await recordConversation(t, tenant.id, bot2.id, { status: 'ended' });
  const apiLead = await createLead(t, tenant.key, { name: `${label} Api Lead`, company: 'Isolation Corp', botId: bot1.id });
  const unbound = await createLead(t, tenant.key, { name: `${label} Unbound Lead`, company: 'Isolation Corp' });
  const document = await t.http().post(`/api/v1/bots/${bot1.id}/documents`).set('X-API-Key', tenant.key).send({ title: `${label} Handbook`, content: `${label} private knowledge.` });
  if (document.status !== 201) throw new Error(`create document answered ${document.status}`);
  return {
    tenant,
    bots: [bot1.id, bot2.id],
    conversations: [chat.id, ended.id],
    endedConversation: ended.id,
    leads: [chat.leadId!, apiLead.id, unbound.id],
    capturedLead: chat.leadId!,
    apiLead: apiLead.id,
    email,
    document: document.body.document.id,
  };
}

describe('Tenant isolation', () => {
  let t: TestApp;
  const worlds: Record<'A' | 'B', World> = {} as Record<'A' | 'B', World>;

  beforeAll(async () => {
    t = await createTestApp();
    worlds.A = await buildWorld(t, 'A');
    worlds.B = await buildWorld(t, 'B');
  });
  afterAll(() => t.close());

  describe.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as const)("with %s's key, %s's data", (meName, otherName) => {
    let me: World;
    let other: World;
    const get = (path: string, key = me.tenant.key) => t.http().get(path).set('X-API-Key', key);

    beforeAll(() => {
      me = worlds[meName];
      other = worlds[otherName];
    });

    describe('lists', () => {
      it('GET /api/v1/bots lists only my bots', async () => {
        const response = await get('/api/v1/bots');
        expect(response.status).toBe(200);
        expect(response.body.bots.map((bot: { id: string }) => bot.id)).toEqual(me.bots);
      });

      it('GET /api/v1/conversations lists only my conversations', async () => {
        const response = await get('/api/v1/conversations?limit=100');
        expect({ status: response.status, ids: ids(response.body.conversations), total: response.body.pagination.total }).toEqual({
          status: 200,
          ids: [...me.conversations].sort(),
          total: 2,
        });
      });

      it("GET /api/v1/conversations?botId=<other's bot> is an empty page", async () => {
        for (const botId of other.bots) {
          const response = await get(`/api/v1/conversations?botId=${botId}`);
          expect({ status: response.status, body: response.body }).toEqual({
            status: 200,
            body: { conversations: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } },
          });
        }
      });

      it('GET /api/v1/conversations?botId=<my bot> and ?status=ended stay within my tenant', async () => {
        const byBot = await get(`/api/v1/conversations?botId=${me.bots[0]}`);
        expect({ status: byBot.status, ids: ids(byBot.body.conversations) }).toEqual({ status: 200, ids: [me.conversations[0]] });
        const ended = await get('/api/v1/conversations?status=ended');
        expect({ status: ended.status, ids: ids(ended.body.conversations) }).toEqual({ status: 200, ids: [me.endedConversation] });
      });

      it('GET /api/v1/leads lists only my leads, with or without a date window', async () => {
        for (const query of ['?limit=100', '?from=2000-01-01&to=2999-12-31&limit=100']) {
          const response = await get(`/api/v1/leads${query}`);
          expect({ status: response.status, ids: ids(response.body.leads), total: response.body.pagination.total }).toEqual({
            status: 200,
            ids: [...me.leads].sort(),
            total: 3,
          });
        }
      });

      it("GET /api/v1/leads?botId=<other's bot> is an empty page", async () => {
        for (const botId of other.bots) {
          const response = await get(`/api/v1/leads?botId=${botId}`);
          expect({ status: response.status, body: response.body }).toEqual({
            status: 200,
            body: { leads: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } },
          });
        }
      });

      it('GET /api/v1/leads?botId=<my bot> finds my leads of that bot only', async () => {
        const response = await get(`/api/v1/leads?botId=${me.bots[0]}`);
        expect({ status: response.status, ids: ids(response.body.leads) }).toEqual({ status: 200, ids: [me.capturedLead, me.apiLead].sort() });
      });

      it('GET /api/v1/leads?search= matches my leads only', async () => {
        const shared = await get('/api/v1/leads?search=isolation%20corp&limit=100');
        expect({ status: shared.status, ids: ids(shared.body.leads) }).toEqual({ status: 200, ids: [...me.leads].sort() });
        const theirs = await get(`/api/v1/leads?search=${encodeURIComponent(other.email)}`);
        expect({ status: theirs.status, leads: theirs.body.leads, total: theirs.body.pagination.total }).toEqual({ status: 200, leads: [], total: 0 });
        const mine = await get(`/api/v1/leads?search=${encodeURIComponent(me.email)}`);
        expect({ status: mine.status, ids: ids(mine.body.leads) }).toEqual({ status: 200, ids: [me.capturedLead] });
      });
    });

    describe('details', () => {
      it('answers my own ids (the 404s below are about ownership)', async () => {
        expect((await get(`/api/v1/bots/${me.bots[0]}`)).status).toBe(200);
        expect((await get(`/api/v1/conversations/${me.conversations[0]}`)).status).toBe(200);
        const messages = await get(`/api/v1/conversations/${me.conversations[0]}/messages`);
        expect({ status: messages.status, count: messages.body.messages?.length }).toEqual({ status: 200, count: 2 });
        expect((await get(`/api/v1/leads/${me.capturedLead}`)).status).toBe(200);
        expect((await get(`/api/v1/leads/${me.apiLead}`)).status).toBe(200);
      });

      it("GET /api/v1/bots/:id with the other tenant's bots is 404 NOT_FOUND", async () => {
        for (const id of other.bots) expectError(await get(`/api/v1/bots/${id}`), 404, 'NOT_FOUND');
      });

      it("GET /api/v1/conversations/:id with the other tenant's conversations is 404 NOT_FOUND", async () => {
        for (const id of other.conversations) expectError(await get(`/api/v1/conversations/${id}`), 404, 'NOT_FOUND');
      });

      it("GET /api/v1/conversations/:id/messages with the other tenant's conversations is 404 NOT_FOUND", async () => {
        for (const id of other.conversations) expectError(await get(`/api/v1/conversations/${id}/messages`), 404, 'NOT_FOUND');
      });

      it("GET /api/v1/leads/:id with the other tenant's leads is 404 NOT_FOUND", async () => {
        for (const id of other.leads) expectError(await get(`/api/v1/leads/${id}`), 404, 'NOT_FOUND');
      });

      it("PATCH /api/v1/leads/:id with the other tenant's leads is 404 NOT_FOUND and changes nothing", async () => {
        for (const id of other.leads) {
          expectError(await t.http().patch(`/api/v1/leads/${id}`).set('X-API-Key', me.tenant.key).send({ status: 'contacted' }), 404, 'NOT_FOUND');
        }
        for (const id of other.leads) {
          const response = await get(`/api/v1/leads/${id}`, other.tenant.key);
          expect({ id, status: response.status, leadStatus: response.body.lead?.status }).toEqual({ id, status: 200, leadStatus: 'new' });
        }
      });

      it("GET /api/v1/bots/:id/documents(/:docId) with the other tenant's bot or document is 404 NOT_FOUND; mine list only mine", async () => {
        const mine = await get(`/api/v1/bots/${me.bots[0]}/documents`);
        expect({ status: mine.status, ids: ids(mine.body.documents), total: mine.body.pagination.total }).toEqual({ status: 200, ids: [me.document], total: 1 });
        for (const id of other.bots) expectError(await get(`/api/v1/bots/${id}/documents`), 404, 'NOT_FOUND');
        expectError(await get(`/api/v1/bots/${other.bots[0]}/documents/${other.document}`), 404, 'NOT_FOUND');
        expectError(await get(`/api/v1/bots/${me.bots[0]}/documents/${other.document}`), 404, 'NOT_FOUND');
      });

      it("POST, PATCH and DELETE of the other tenant's documents are 404 NOT_FOUND and change nothing", async () => {
        const key = me.tenant.key;
        const theirs = async () => (await get(`/api/v1/bots/${other.bots[0]}/documents/${other.document}`, other.tenant.key)).body.document;
        const before = { document: await theirs(), size: (await get(`/api/v1/bots/${other.bots[0]}`, other.tenant.key)).body.bot.knowledgeBaseSize };
        expectError(await t.http().post(`/api/v1/bots/${other.bots[0]}/documents`).set('X-API-Key', key).send({ title: 'Planted', content: 'Planted text' }), 404, 'NOT_FOUND');
        for (const bot of [other.bots[0], me.bots[0]]) {
          expectError(await t.http().patch(`/api/v1/bots/${bot}/documents/${other.document}`).set('X-API-Key', key).send({ title: 'Hijacked' }), 404, 'NOT_FOUND');
          expectError(await t.http().delete(`/api/v1/bots/${bot}/documents/${other.document}`).set('X-API-Key', key), 404, 'NOT_FOUND');
        }
        expect({ document: await theirs(), size: (await get(`/api/v1/bots/${other.bots[0]}`, other.tenant.key)).body.bot.knowledgeBaseSize }).toEqual(before);
      });

      it("answers another tenant's id exactly like an id that does not exist", async () => {
        const missing = randomUUID();
        const pairs: [string, string][] = [
          [`/api/v1/bots/${other.bots[0]}`, `/api/v1/bots/${missing}`],
          [`/api/v1/conversations/${other.conversations[0]}`, `/api/v1/conversations/${missing}`],
          [`/api/v1/conversations/${other.conversations[0]}/messages`, `/api/v1/conversations/${missing}/messages`],
          [`/api/v1/leads/${other.leads[0]}`, `/api/v1/leads/${missing}`],
          [`/api/v1/bots/${other.bots[0]}/documents`, `/api/v1/bots/${missing}/documents`],
          [`/api/v1/bots/${other.bots[0]}/documents/${other.document}`, `/api/v1/bots/${other.bots[0]}/documents/${missing}`],
        ];
        for (const [theirs, absent] of pairs) {
          const [a, b] = [await get(theirs), await get(absent)];
          expect({ status: a.status, error: { ...a.body.error, requestId: undefined } }).toEqual({ status: b.status, error: { ...b.body.error, requestId: undefined } });
        }
      });
    });

    describe('POST /api/v1/leads with botId of the other tenant', () => {
      it('is 400 VALIDATION_ERROR with a detail on botId, exactly like a bot that does not exist, and creates nothing', async () => {
        const before = { mine: await t.prisma.lead.count({ where: { tenantId: me.tenant.id } }), theirs: await t.prisma.lead.count({ where: { tenantId: other.tenant.id } }) };
        const post = (botId: string) => t.http().post('/api/v1/leads').set('X-API-Key', me.tenant.key).send({ name: 'Cross Lead', email: 'cross@example.com', botId });

        const theirs = await post(other.bots[0]);
        expect({ status: theirs.status, body: theirs.body }).toEqual({
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_ERROR',
              message: expect.any(String),
              status: 400,
              requestId: theirs.headers['x-request-id'],
              details: [{ field: 'botId', message: expect.any(String) }],
            },
          },
        });
        const absent = await post(randomUUID());
        expect({ status: absent.status, error: { ...absent.body.error, requestId: undefined } }).toEqual({ status: 400, error: { ...theirs.body.error, requestId: undefined } });

        expect({ mine: await t.prisma.lead.count({ where: { tenantId: me.tenant.id } }), theirs: await t.prisma.lead.count({ where: { tenantId: other.tenant.id } }) }).toEqual(before);
      });
    });

    describe("admin API paths mixing my tenant id with the other tenant's ids", () => {
      const admin = () => t.admin();
      const otherBot = async () => (await get(`/api/v1/bots/${other.bots[0]}`, other.tenant.key)).body.bot;

      it("PATCH .../bots/<other's bot> is 404 and leaves the bot as it was", async () => {
        const before = await otherBot();
        expectError(await admin().patch(`/admin/v1/tenants/${me.tenant.id}/bots/${other.bots[0]}`).send({ name: 'Hijacked', isActive: false }), 404, 'NOT_FOUND');
        expect(await otherBot()).toEqual(before);
      });

      it("POST .../bots/<other's bot>/documents is 404 and adds nothing to its knowledge base", async () => {
        const before = await otherBot();
        expectError(await admin().post(`/admin/v1/tenants/${me.tenant.id}/bots/${other.bots[0]}/documents`).send({ title: 'Planted', content: 'Planted text' }), 404, 'NOT_FOUND');
        expect(await otherBot()).toEqual(before);
        expect(await t.prisma.knowledgeDocument.findMany({ where: { botId: other.bots[0] }, select: { id: true } })).toEqual([{ id: other.document }]);
      });

      it("POST .../bots/<other's bot>/conversations is 404 and records nothing", async () => {
        const before = await otherBot();
        const response = await admin()
          .post(`/admin/v1/tenants/${me.tenant.id}/bots/${other.bots[0]}/conversations`)
          .send({ messages: [{ role: 'user', content: 'Planted' }], lead: { name: 'Planted Lead', email: 'planted@example.com' } });
        expectError(response, 404, 'NOT_FOUND');
        expect(await otherBot()).toEqual(before);
        expect(await t.prisma.conversation.count({ where: { botId: other.bots[0] } })).toBe(1);
        expect(await t.prisma.lead.count({ where: { email: 'planted@example.com', tenantId: { in: [me.tenant.id, other.tenant.id] } } })).toBe(0);
      });

      it("DELETE .../api-keys/<other's key> is 404 and the other tenant's key keeps working", async () => {
        expectError(await admin().delete(`/admin/v1/tenants/${me.tenant.id}/api-keys/${other.tenant.keyId}`), 404, 'NOT_FOUND');
        const verify = await get('/api/v1/verify', other.tenant.key);
        expect({ status: verify.status, tenant: verify.body.tenant?.id }).toEqual({ status: 200, tenant: other.tenant.id });
        const keys = await admin().get(`/admin/v1/tenants/${other.tenant.id}/api-keys`);
        expect(keys.body.apiKeys.map((key: { id: string }) => key.id)).toEqual([other.tenant.keyId]);
      });

      it('GET .../api-keys lists my keys only', async () => {
        const keys = await admin().get(`/admin/v1/tenants/${me.tenant.id}/api-keys`);
        expect({ status: keys.status, ids: keys.body.apiKeys.map((key: { id: string }) => key.id) }).toEqual({ status: 200, ids: [me.tenant.keyId] });
      });

      it('left no audit event about the other tenant in either log', async () => {
        const theirIds = new Set([...other.bots, other.tenant.keyId, other.tenant.id, other.document]);
        const mine = await admin().get(`/admin/v1/tenants/${me.tenant.id}/audit-log?limit=100`);
        expect(mine.status).toBe(200);
        expect(mine.body.events.filter((event: { targetId: string }) => theirIds.has(event.targetId))).toEqual([]);
        const theirs = await admin().get(`/admin/v1/tenants/${other.tenant.id}/audit-log?limit=100`);
        expect(theirs.status).toBe(200);
        expect(theirs.body.events.map((event: { action: string }) => event.action).filter((action: string) => /deleted|deactivated|renamed|updated/.test(action))).toEqual([]);
      });
    });
  });
});
