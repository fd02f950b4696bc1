import { randomUUID } from 'node:crypto';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { controllerRoutes } from '../support/controller-routes';
import { createBot, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';
import { addMember, asUser, newEmail, signUp, type TestUser, type UserClient } from '../support/users';

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
  const document = await t
    .http()
    .post(`/api/v1/bots/${bot1.id}/documents`)
    .set('X-API-Key', tenant.key)
    .send({ title: `${label} Handbook`, content: `${label} private knowledge.` });
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
        expect({ status: mine.status, ids: ids(mine.body.documents), total: mine.body.pagination.total }).toEqual({
          status: 200,
          ids: [me.document],
          total: 1,
        });
        for (const id of other.bots) expectError(await get(`/api/v1/bots/${id}/documents`), 404, 'NOT_FOUND');
        expectError(await get(`/api/v1/bots/${other.bots[0]}/documents/${other.document}`), 404, 'NOT_FOUND');
        expectError(await get(`/api/v1/bots/${me.bots[0]}/documents/${other.document}`), 404, 'NOT_FOUND');
      });

      it("POST, PATCH and DELETE of the other tenant's documents are 404 NOT_FOUND and change nothing", async () => {
        const key = me.tenant.key;
        const theirs = async () => (await get(`/api/v1/bots/${other.bots[0]}/documents/${other.document}`, other.tenant.key)).body.document;
        const before = { document: await theirs(), size: (await get(`/api/v1/bots/${other.bots[0]}`, other.tenant.key)).body.bot.knowledgeBaseSize };
        expectError(
          await t.http().post(`/api/v1/bots/${other.bots[0]}/documents`).set('X-API-Key', key).send({ title: 'Planted', content: 'Planted text' }),
          404,
          'NOT_FOUND',
        );
        for (const bot of [other.bots[0], me.bots[0]]) {
          expectError(
            await t.http().patch(`/api/v1/bots/${bot}/documents/${other.document}`).set('X-API-Key', key).send({ title: 'Hijacked' }),
            404,
            'NOT_FOUND',
          );
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
          expect({ status: a.status, error: { ...a.body.error, requestId: undefined } }).toEqual({
            status: b.status,
            error: { ...b.body.error, requestId: undefined },
          });
        }
      });
    });

    describe('POST /api/v1/leads with botId of the other tenant', () => {
      it('is 400 VALIDATION_ERROR with a detail on botId, exactly like a bot that does not exist, and creates nothing', async () => {
        const before = {
          mine: await t.prisma.lead.count({ where: { tenantId: me.tenant.id } }),
          theirs: await t.prisma.lead.count({ where: { tenantId: other.tenant.id } }),
        };
        const post = (botId: string) =>
          t.http().post('/api/v1/leads').set('X-API-Key', me.tenant.key).send({ name: 'Cross Lead', email: 'cross@example.com', botId });

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
        expect({ status: absent.status, error: { ...absent.body.error, requestId: undefined } }).toEqual({
          status: 400,
          error: { ...theirs.body.error, requestId: undefined },
        });

        expect({
          mine: await t.prisma.lead.count({ where: { tenantId: me.tenant.id } }),
          theirs: await t.prisma.lead.count({ where: { tenantId: other.tenant.id } }),
        }).toEqual(before);
      });
    });

    describe("admin API paths mixing my tenant id with the other tenant's ids", () => {
      const admin = () => t.admin();
      const otherBot = async () => (await get(`/api/v1/bots/${other.bots[0]}`, other.tenant.key)).body.bot;

      it("PATCH .../bots/<other's bot> is 404 and leaves the bot as it was", async () => {
        const before = await otherBot();
        expectError(
          await admin().patch(`/admin/v1/tenants/${me.tenant.id}/bots/${other.bots[0]}`).send({ name: 'Hijacked', isActive: false }),
          404,
          'NOT_FOUND',
        );
        expect(await otherBot()).toEqual(before);
      });

      it("POST .../bots/<other's bot>/documents is 404 and adds nothing to its knowledge base", async () => {
        const before = await otherBot();
        expectError(
          await admin().post(`/admin/v1/tenants/${me.tenant.id}/bots/${other.bots[0]}/documents`).send({ title: 'Planted', content: 'Planted text' }),
          404,
          'NOT_FOUND',
        );
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
        expect(
          theirs.body.events.map((event: { action: string }) => event.action).filter((action: string) => /deleted|deactivated|renamed|updated/.test(action)),
        ).toEqual([]);
      });
    });
  });
});

/** A tenant run from the dashboard: its owner and an agent, and a row of every kind the users-only routes reach. */
interface UserWorld {
  owner: TestUser;
  agent: TestUser;
  bot: string;
  document: string;
  lead: string;
  conversation: string;
  webhook: string;
  keyId: string;
  key: string;
  invitation: string;
}

async function buildUserWorld(t: TestApp, label: string): Promise<UserWorld> {
  const owner = await signUp(t, { name: `${label} Owner`, tenantName: `${label} Dashboard Co` });
  // Secret keys need Pro or higher.
  await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'business' }).expect(200);
  const as = asUser(t, owner.cookie, owner.tenantId);
  const bot = (
    await as
      .post('/api/v1/bots')
      .send({ name: `${label} User Bot` })
      .expect(201)
  ).body.bot.id as string;
  const created = (
    await as
      .post('/api/v1/api-keys')
      .send({ name: `${label} key`, scopes: ['bots:read', 'leads:read'] })
      .expect(201)
  ).body;
  const invitation = (
    await as
      .post('/api/v1/invitations')
      .send({ email: newEmail(`invited-${label}`), role: 'viewer' })
      .expect(201)
  ).body.invitation.id as string;
  const agent = await addMember(t, owner, 'agent');
  const document = (
    await as
      .post(`/api/v1/bots/${bot}/documents`)
      .send({ title: `${label} Handbook`, content: `${label} private knowledge.` })
      .expect(201)
  ).body.document.id as string;
  const lead = (
    await as
      .post('/api/v1/leads')
      .send({ name: `${label} User Lead`, email: newEmail(`lead-${label}`) })
      .expect(201)
  ).body.lead.id as string;
  const webhook = (
    await as
      .post('/api/v1/webhooks')
      .send({ url: 'https://hooks.example.com/in', events: ['*'] })
      .expect(201)
  ).body.webhook.id as string;
  const conversation = (await recordConversation(t, owner.tenantId, bot)).id;
  return { owner, agent, bot, document, lead, conversation, webhook, keyId: created.apiKey.id, key: created.key, invitation };
}

describe('Tenant isolation for signed-in users', () => {
  let t: TestApp;
  const worlds: Record<'A' | 'B', UserWorld> = {} as Record<'A' | 'B', UserWorld>;

  beforeAll(async () => {
    t = await createTestApp();
    worlds.A = await buildUserWorld(t, 'A');
    worlds.B = await buildUserWorld(t, 'B');
  });
  afterAll(() => t.close());

  /** Everything of a tenant a user's request could change, to compare before and after. */
  const stateOf = async (tenantId: string) => ({
    tenant: await t.prisma.tenant.findUnique({ where: { id: tenantId }, select: { name: true, plan: true, updatedAt: true } }),
    memberships: await t.prisma.membership.findMany({ where: { tenantId }, select: { userId: true, role: true }, orderBy: { userId: 'asc' } }),
    invitations: await t.prisma.invitation.count({ where: { tenantId } }),
    keys: await t.prisma.apiKey.count({ where: { tenantId, deletedAt: null } }),
    bots: await t.prisma.bot.findMany({ where: { tenantId }, select: { id: true, name: true, isActive: true, updatedAt: true }, orderBy: { id: 'asc' } }),
    documents: await t.prisma.knowledgeDocument.findMany({ where: { tenantId }, select: { id: true, title: true, updatedAt: true }, orderBy: { id: 'asc' } }),
    leads: await t.prisma.lead.findMany({ where: { tenantId }, select: { id: true, status: true, updatedAt: true }, orderBy: { id: 'asc' } }),
    conversations: await t.prisma.conversation.count({ where: { tenantId } }),
    webhooks: await t.prisma.webhookEndpoint.findMany({ where: { tenantId }, select: { id: true, updatedAt: true }, orderBy: { id: 'asc' } }),
    auditEvents: await t.prisma.auditEvent.count({ where: { tenantId } }),
  });

  describe.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as const)("%s's owner, %s's data", (meName, otherName) => {
    let me: UserWorld;
    let other: UserWorld;
    let as: UserClient;

    beforeAll(() => {
      me = worlds[meName];
      other = worlds[otherName];
      as = asUser(t, me.owner.cookie, me.owner.tenantId);
    });

    it("is 403 NOT_A_MEMBER on every users-only and key route with the other tenant's X-Tenant-Id, and changes nothing", async () => {
      const routes = controllerRoutes(t.app).filter(({ rule }) => rule?.kind === 'apiKey' || rule?.kind === 'tenantUser');
      expect(routes.length).toBeGreaterThan(40);
      const ids: Record<string, string> = { id: other.bot, botId: other.bot, docId: other.document, userId: other.agent.id, deliveryId: randomUUID() };
      const before = await stateOf(other.owner.tenantId);
      const intoOther = asUser(t, me.owner.cookie, other.owner.tenantId);
      const answers: Record<string, string> = {};
      for (const { route } of routes) {
        const [method, template] = route.split(' ');
        const path = template.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? randomUUID());
        const call = intoOther[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](path);
        const response = await (['POST', 'PUT', 'PATCH'].includes(method) ? call.send({}) : call);
        answers[route] = `${response.status} ${response.body?.error?.code}`;
      }
      expect(answers).toEqual(Object.fromEntries(routes.map(({ route }) => [route, '403 NOT_A_MEMBER'])));
      expect(await stateOf(other.owner.tenantId)).toEqual(before);
    });

    it('lists only my API keys, members, invitations, bots, leads, webhooks and audit events', async () => {
      const list = async (path: string, field: string) =>
        ((await as.get(path).expect(200)).body[field] as { id?: string; userId?: string }[]).map((row) => row.id ?? row.userId).sort();
      expect(await list('/api/v1/api-keys', 'apiKeys')).toEqual([me.keyId]);
      expect(await list('/api/v1/members', 'members')).toEqual([me.owner.id, me.agent.id].sort());
      expect(await list('/api/v1/invitations', 'invitations')).not.toContain(other.invitation);
      expect(await list('/api/v1/bots', 'bots')).toEqual([me.bot]);
      expect(await list('/api/v1/leads', 'leads')).toEqual([me.lead]);
      expect(await list('/api/v1/webhooks', 'webhooks')).toEqual([me.webhook]);
      expect(await list(`/api/v1/bots/${me.bot}/documents`, 'documents')).toEqual([me.document]);
      const events = (await as.get('/api/v1/audit-log?limit=100').expect(200)).body.events as { actor: string; targetId: string }[];
      expect(events.length).toBeGreaterThan(5);
      const theirs = new Set([
        other.owner.tenantId,
        other.bot,
        other.document,
        other.lead,
        other.webhook,
        other.keyId,
        other.invitation,
        other.agent.id,
        other.owner.id,
      ]);
      expect(events.filter((event) => theirs.has(event.targetId) || event.actor === `user:${other.owner.id}`)).toEqual([]);
      const byTheirOwner = await as.get(`/api/v1/audit-log?actor=user:${other.owner.id}`).expect(200);
      expect(byTheirOwner.body).toEqual({ events: [], pagination: { total: 0, limit: 20, offset: 0, hasMore: false } });
    });

    it("is 404 NOT_FOUND for the other tenant's rows under my X-Tenant-Id, exactly like ids that do not exist, and changes nothing", async () => {
      const before = await stateOf(other.owner.tenantId);
      const missing = randomUUID();
      const pairs: [string, (id: string) => Promise<{ status: number; body: { error?: Record<string, unknown> } }>, string][] = [
        ['DELETE /api/v1/api-keys/:id', (id) => as.delete(`/api/v1/api-keys/${id}`), other.keyId],
        ['GET /api/v1/api-keys/:id/activity', (id) => as.get(`/api/v1/api-keys/${id}/activity`), other.keyId],
        ['PATCH /api/v1/members/:userId', (id) => as.patch(`/api/v1/members/${id}`).send({ role: 'viewer' }), other.agent.id],
        ['PATCH /api/v1/members/:userId (their owner)', (id) => as.patch(`/api/v1/members/${id}`).send({ role: 'viewer' }), other.owner.id],
        ['DELETE /api/v1/members/:userId', (id) => as.delete(`/api/v1/members/${id}`), other.agent.id],
        ['DELETE /api/v1/invitations/:id', (id) => as.delete(`/api/v1/invitations/${id}`), other.invitation],
        ['GET /api/v1/bots/:id', (id) => as.get(`/api/v1/bots/${id}`), other.bot],
        ['PATCH /api/v1/bots/:id', (id) => as.patch(`/api/v1/bots/${id}`).send({ name: 'Hijacked', isActive: false }), other.bot],
        ['GET /api/v1/bots/:id/documents', (id) => as.get(`/api/v1/bots/${id}/documents`), other.bot],
        ['POST /api/v1/bots/:id/documents', (id) => as.post(`/api/v1/bots/${id}/documents`).send({ title: 'Planted', content: 'Planted text' }), other.bot],
        ['PATCH /api/v1/bots/:id/documents/:docId', (id) => as.patch(`/api/v1/bots/${me.bot}/documents/${id}`).send({ title: 'Hijacked' }), other.document],
        ['DELETE /api/v1/bots/:id/documents/:docId', (id) => as.delete(`/api/v1/bots/${other.bot}/documents/${id}`), other.document],
        ['GET /api/v1/bots/:id/settings', (id) => as.get(`/api/v1/bots/${id}/settings`), other.bot],
        ['PATCH /api/v1/bots/:id/settings', (id) => as.patch(`/api/v1/bots/${id}/settings`).send({ welcomeMessage: 'Hijacked' }), other.bot],
        ['GET /api/v1/leads/:id', (id) => as.get(`/api/v1/leads/${id}`), other.lead],
        ['PATCH /api/v1/leads/:id', (id) => as.patch(`/api/v1/leads/${id}`).send({ status: 'contacted' }), other.lead],
        ['GET /api/v1/conversations/:id', (id) => as.get(`/api/v1/conversations/${id}`), other.conversation],
        ['GET /api/v1/conversations/:id/messages', (id) => as.get(`/api/v1/conversations/${id}/messages`), other.conversation],
        ['GET /api/v1/webhooks/:id', (id) => as.get(`/api/v1/webhooks/${id}`), other.webhook],
        ['PATCH /api/v1/webhooks/:id', (id) => as.patch(`/api/v1/webhooks/${id}`).send({ enabled: false }), other.webhook],
        ['POST /api/v1/webhooks/:id/rotate-secret', (id) => as.post(`/api/v1/webhooks/${id}/rotate-secret`), other.webhook],
        ['DELETE /api/v1/webhooks/:id', (id) => as.delete(`/api/v1/webhooks/${id}`), other.webhook],
      ];
      for (const [route, send, theirId] of pairs) {
        const [theirs, absent] = [await send(theirId), await send(missing)];
        expect({ route, status: theirs.status, error: { ...theirs.body.error, requestId: undefined } }).toEqual({
          route,
          status: 404,
          error: { ...absent.body.error, requestId: undefined },
        });
        expect(theirs.body.error?.code).toBe('NOT_FOUND');
      }
      expect(await stateOf(other.owner.tenantId)).toEqual(before);
      // Their key still works, their agent still signs in to their tenant with the same role.
      expect((await t.http().get('/api/v1/bots').set('X-API-Key', other.key)).status).toBe(200);
      const agentView = await asUser(t, other.agent.cookie, other.owner.tenantId).get('/api/v1/members').expect(200);
      expect(agentView.body.members.find((member: { userId: string }) => member.userId === other.agent.id).role).toBe('agent');
    });

    it("keeps my agent out of the other tenant too: 403 NOT_A_MEMBER, and my own tenant's rows stay reachable", async () => {
      const agentIntoOther = asUser(t, me.agent.cookie, other.owner.tenantId);
      for (const path of ['/api/v1/tenant', '/api/v1/members', '/api/v1/bots', `/api/v1/bots/${other.bot}`, `/api/v1/leads/${other.lead}`]) {
        expectError(await agentIntoOther.get(path), 403, 'NOT_A_MEMBER');
      }
      expect((await asUser(t, me.agent.cookie, me.owner.tenantId).get(`/api/v1/bots/${me.bot}`)).status).toBe(200);
      expect((await as.get(`/api/v1/api-keys/${me.keyId}/activity`)).status).toBe(200);
    });
  });
});
