import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createLead, createTenant, recordConversation, TestTenant } from '../support/factories';
import { COMMITTED_DOCUMENT_PATH } from '../support/openapi-contract';
import { addMember, newEmail, ORIGIN, signUp, type TestUser } from '../support/users';

type Schema = { $ref?: string; type?: string | string[]; anyOf?: Schema[]; properties?: Record<string, Schema>; items?: Schema };
const DOCUMENT = JSON.parse(readFileSync(COMMITTED_DOCUMENT_PATH, 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(DOCUMENT.components.schemas[schema.$ref.split('/').pop()!]) : schema);
const isNullable = (schema: Schema): boolean => {
  const resolved = resolve(schema);
  return (Array.isArray(resolved.type) && resolved.type.includes('null')) || (resolved.anyOf ?? []).some((option) => option.type === 'null');
};
const isObject = (schema: Schema) => resolve(schema).type === 'object' || Boolean(resolve(schema).properties);

/** Every field of a body, nested objects and the first item of arrays of objects included: [path, schema, set(body, value)]. */
function fieldsOf(schema: Schema, prefix = ''): [string, Schema][] {
  return Object.entries(resolve(schema).properties ?? {}).flatMap(([name, property]): [string, Schema][] => {
    const path = prefix ? `${prefix}.${name}` : name;
    const nested = resolve(property);
    if (isObject(property)) return [[path, property], ...fieldsOf(property, path)];
    if (nested.type === 'array' && nested.items && isObject(nested.items)) return [[path, property], ...fieldsOf(nested.items, `${path}[0]`)];
    return [[path, property]];
  });
}

function withNull(body: Record<string, unknown>, path: string): Record<string, unknown> {
  const copy = structuredClone(body);
  const steps = path.replace(/\[(\d+)\]/g, '.$1').split('.');
  let target: Record<string, unknown> = copy;
  for (const step of steps.slice(0, -1)) target = target[step] as Record<string, unknown>;
  target[steps.at(-1)!] = null;
  return copy;
}

describe('null in any body field, and write-only keys', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Record<string, string>;
  /** The owner of a second tenant (on Enterprise), for the users-only routes. */
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    const bot = await createBot(t, tenant.id);
    owner = await signUp(t);
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'enterprise' }).expect(200);
    ids = { tenantId: tenant.id, botId: bot.id, ownerBotId: (await createBot(t, owner.tenantId)).id };
    // Visitors may ask for a person (POST /api/v1/widget/conversations/:id/handoff).
    await t
      .http()
      .patch(`/api/v1/bots/${bot.id}/settings`)
      .set('X-API-Key', tenant.key)
      .send({ handoff: { enabled: true } })
      .expect(200);
  });
  afterAll(() => t.close());

  /** A signed-in user's request headers: the session cookie, the dashboard's Origin and (on /api/v1) X-Tenant-Id. */
  const userHeaders = (user: TestUser, tenantId: string | null = user.tenantId): Record<string, string> => ({
    Cookie: user.cookie,
    Origin: ORIGIN,
    ...(tenantId ? { 'X-Tenant-Id': tenantId } : {}),
  });
  /** The sign-in steps (sign-up, log-in, links from mails) need only the dashboard's Origin. */
  const signInHeaders = { Origin: ORIGIN };

  /** One agent of the owner's tenant, made on first use, whose role the member route changes. */
  let agent: TestUser | undefined;
  const agentOfOwner = async (): Promise<TestUser> => (agent ??= await addMember(t, owner, 'agent'));

  /** A fresh invitation's token (single use). */
  const invitationToken = async (): Promise<string> => {
    const invited = await t
      .http()
      .post('/api/v1/invitations')
      .set(userHeaders(owner))
      .send({ email: newEmail('invited'), role: 'viewer' })
      .expect(201);
    return new URL(invited.body.acceptUrl).searchParams.get('token')!;
  };

  /** A fresh password-reset token of a new user, from the admin API (single use). */
  const resetToken = async (): Promise<string> => {
    const user = await signUp(t);
    const issued = await t.admin().post(`/admin/v1/users/${user.id}/password-resets`).expect(201);
    return new URL(issued.body.resetUrl).searchParams.get('token')!;
  };

  /** One webhook endpoint of the tenant, made on first use (the tenant may have 20). */
  let webhook: string | undefined;
  const webhookId = async (): Promise<string> =>
    (webhook ??= (
      await t
        .http()
        .post('/api/v1/webhooks')
        .set('X-API-Key', tenant.key)
        .send({ url: 'https://hooks.example.com/in', events: ['*'] })
        .expect(201)
    ).body.webhook.id);

  /** A widget visitor with a fresh conversation: the public key, its token and the conversation. */
  const widgetVisitor = async (): Promise<{ key: string; headers: Record<string, string>; conversationId: string }> => {
    const key = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    const { visitorToken } = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', key).send({ botId: ids.botId }).expect(201)).body;
    const headers = { 'X-Visitor-Token': visitorToken as string };
    const conversationId = (await t.http().post('/api/v1/widget/conversations').set('X-API-Key', key).set(headers).send({}).expect(201)).body.conversation
      .id as string;
    return { key, headers, conversationId };
  };

  /** A valid body of each route that takes one, with every optional field sent. */
  const validBodies = (): Record<
    string,
    () => Promise<{ path: string; body: Record<string, unknown>; key?: string; user?: boolean; headers?: Record<string, string> }>
  > => ({
    'POST /api/v1/widget/sessions': async () => ({
      path: '/api/v1/widget/sessions',
      key: (await widgetVisitor()).key,
      body: { botId: ids.botId, visitorId: 'visitor-0001' },
    }),
    'POST /api/v1/widget/conversations': async () => {
      const { key, headers } = await widgetVisitor();
      return { path: '/api/v1/widget/conversations', key, headers, body: {} };
    },
    'POST /api/v1/widget/conversations/{id}/messages': async () => {
      const { key, headers, conversationId } = await widgetVisitor();
      return { path: `/api/v1/widget/conversations/${conversationId}/messages`, key, headers, body: { content: 'What does it cost?' } };
    },
    'POST /api/v1/widget/conversations/{id}/lead': async () => {
      const { key, headers, conversationId } = await widgetVisitor();
      return {
        path: `/api/v1/widget/conversations/${conversationId}/lead`,
        key,
        headers,
        body: { name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme', message: 'Hi' },
      };
    },
    'POST /api/v1/widget/conversations/{id}/end': async () => {
      const { key, headers, conversationId } = await widgetVisitor();
      return { path: `/api/v1/widget/conversations/${conversationId}/end`, key, headers, body: {} };
    },
    'POST /api/v1/widget/conversations/{id}/handoff': async () => {
      const { key, headers, conversationId } = await widgetVisitor();
      return { path: `/api/v1/widget/conversations/${conversationId}/handoff`, key, headers, body: {} };
    },
    'POST /api/v1/conversations': async () => ({
      path: '/api/v1/conversations',
      key: tenant.key,
      body: { botId: ids.botId, externalId: 'user-0001', visitor: { name: 'Ada', email: 'ada@example.com' } },
    }),
    'POST /api/v1/conversations/{id}/visitor-messages': async () => {
      const opened = await t.http().post('/api/v1/conversations').set('X-API-Key', tenant.key).send({ botId: ids.botId }).expect(201);
      return { path: `/api/v1/conversations/${opened.body.conversation.id}/visitor-messages`, key: tenant.key, body: { content: 'What does it cost?' } };
    },
    'POST /api/v1/conversations/{id}/handoff': async () => ({
      path: `/api/v1/conversations/${(await widgetVisitor()).conversationId}/handoff`,
      key: tenant.key,
      body: {},
    }),
    'POST /api/v1/conversations/{id}/messages': async () => ({
      path: `/api/v1/conversations/${(await widgetVisitor()).conversationId}/messages`,
      key: tenant.key,
      body: { content: 'Hi, this is Sam.', authorName: 'Sam' },
    }),
    'POST /api/v1/conversations/{id}/release': async () => ({
      path: `/api/v1/conversations/${(await widgetVisitor()).conversationId}/release`,
      key: tenant.key,
      body: {},
    }),
    'POST /api/v1/conversations/{id}/end': async () => ({
      path: `/api/v1/conversations/${(await widgetVisitor()).conversationId}/end`,
      key: tenant.key,
      body: {},
    }),
    'PUT /api/v1/conversations/{id}/assignee': async () => {
      // A conversation of the owner's tenant, made through the admin API.
      const conversation = await recordConversation(t, owner.tenantId, ids.ownerBotId);
      return { path: `/api/v1/conversations/${conversation.id}/assignee`, user: true, headers: userHeaders(owner), body: { userId: owner.id, force: true } };
    },
    'POST /api/v1/privacy/exports': async () => ({ path: '/api/v1/privacy/exports', key: tenant.key, body: { email: 'ada@example.com' } }),
    'POST /api/v1/privacy/erasures': async () => ({ path: '/api/v1/privacy/erasures', key: tenant.key, body: { email: `erase-${randomUUID()}@example.com` } }),
    'POST /api/v1/leads': async () => ({
      path: '/api/v1/leads',
      key: tenant.key,
      body: { name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme', message: 'Hi', botId: ids.botId, tags: ['vip'] },
    }),
    'PATCH /api/v1/leads/{id}': async () => ({
      path: `/api/v1/leads/${(await createLead(t, tenant.key)).id}`,
      key: tenant.key,
      body: { status: 'contacted', name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme', message: 'Hi', tags: ['vip'] },
    }),
    'POST /api/v1/leads/import': async () => ({
      path: '/api/v1/leads/import',
      key: tenant.key,
      body: { leads: [{ name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme', message: 'Hi', botId: ids.botId, tags: ['vip'] }] },
    }),
    'PATCH /api/v1/settings': async () => ({
      path: '/api/v1/settings',
      key: tenant.key,
      body: {
        timezone: 'Europe/Berlin',
        allowedOrigins: ['https://www.example.com'],
        visitorMessageLimit: { messages: 10, windowSeconds: 60 },
        leadCapture: { enabled: true, requirePhone: true, requireCompany: false },
        widgetLimits: { repliesPerIpPerDay: 500 },
        retention: { conversationDays: 90, leadDays: 365 },
      },
    }),
    'PATCH /api/v1/bots/{id}/settings': async () => ({
      path: `/api/v1/bots/${ids.botId}/settings`,
      key: tenant.key,
      body: { welcomeMessage: 'Hi', suggestedQuestions: ['Price?'], fallbackMessage: 'Sorry.', showSources: true },
    }),
    'POST /api/v1/webhooks': async () => ({
      path: '/api/v1/webhooks',
      key: tenant.key,
      body: { url: 'https://hooks.example.com/in', events: ['*'], description: 'CRM' },
    }),
    'PATCH /api/v1/webhooks/{id}': async () => ({
      path: `/api/v1/webhooks/${await webhookId()}`,
      key: tenant.key,
      body: { url: 'https://hooks.example.com/v2', events: ['lead.created'], description: 'CRM', enabled: true },
    }),
    'POST /api/v1/webhooks/{id}/rotate-secret': async () => ({ path: `/api/v1/webhooks/${await webhookId()}/rotate-secret`, key: tenant.key, body: {} }),
    'POST /api/v1/webhooks/{id}/test': async () => ({ path: `/api/v1/webhooks/${await webhookId()}/test`, key: tenant.key, body: {} }),
    'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/retry': async () => {
      const id = await webhookId();
      const delivery = (await t.http().post(`/api/v1/webhooks/${id}/test`).set('X-API-Key', tenant.key).expect(202)).body.delivery.id;
      return { path: `/api/v1/webhooks/${id}/deliveries/${delivery}/retry`, key: tenant.key, body: {} };
    },
    'POST /api/v1/bots/{id}/documents': async () => ({
      path: `/api/v1/bots/${ids.botId}/documents`,
      key: tenant.key,
      body: { title: 'Pricing', content: 'Pro costs 49 EUR.' },
    }),
    'PATCH /api/v1/bots/{id}/documents/{docId}': async () => {
      const document = (
        await t.http().post(`/api/v1/bots/${ids.botId}/documents`).set('X-API-Key', tenant.key).send({ title: 'Draft', content: 'Draft text.' }).expect(201)
      ).body.document;
      return { path: `/api/v1/bots/${ids.botId}/documents/${document.id}`, key: tenant.key, body: { title: 'Pricing', content: 'Pro costs 49 EUR.' } };
    },
    'POST /auth/v1/signup': async () => ({
      path: '/auth/v1/signup',
      user: true,
      headers: signInHeaders,
      body: { email: newEmail('signup'), password: 'correct horse battery', name: 'Ada', tenantName: 'Acme' },
    }),
    'POST /auth/v1/sessions': async () => ({
      path: '/auth/v1/sessions',
      user: true,
      headers: signInHeaders,
      body: { email: owner.email, password: owner.password },
    }),
    // A new password ends the user's other sessions: each request is a new user's.
    'PATCH /auth/v1/me': async () => {
      const user = await signUp(t);
      return {
        path: '/auth/v1/me',
        user: true,
        headers: userHeaders(user, null),
        body: { name: 'Ada', password: 'a new password 123', currentPassword: user.password },
      };
    },
    'POST /auth/v1/invitations/accept': async () => ({
      path: '/auth/v1/invitations/accept',
      user: true,
      headers: signInHeaders,
      body: { token: await invitationToken(), name: 'Ada', password: 'invited password 1' },
    }),
    'POST /auth/v1/password-resets': async () => ({ path: '/auth/v1/password-resets', user: true, headers: signInHeaders, body: { email: owner.email } }),
    'POST /auth/v1/password-resets/confirm': async () => ({
      path: '/auth/v1/password-resets/confirm',
      user: true,
      headers: signInHeaders,
      body: { token: await resetToken(), password: 'reset password 123' },
    }),
    'PATCH /api/v1/tenant': async () => ({ path: '/api/v1/tenant', user: true, headers: userHeaders(owner), body: { name: 'Renamed' } }),
    'PATCH /api/v1/members/{userId}': async () => ({
      path: `/api/v1/members/${(await agentOfOwner()).id}`,
      user: true,
      headers: userHeaders(owner),
      body: { role: 'agent' },
    }),
    'POST /api/v1/invitations': async () => ({
      path: '/api/v1/invitations',
      user: true,
      headers: userHeaders(owner),
      body: { email: newEmail('invited'), role: 'agent' },
    }),
    'POST /api/v1/api-keys': async () => ({
      path: '/api/v1/api-keys',
      user: true,
      headers: userHeaders(owner),
      body: { name: 'k', scopes: ['bots:read'], type: 'secret', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    }),
    'POST /api/v1/identity-secret': async () => ({ path: '/api/v1/identity-secret', user: true, headers: userHeaders(owner), body: {} }),
    'POST /api/v1/bots': async () => ({
      path: '/api/v1/bots',
      user: true,
      headers: userHeaders(owner),
      body: { name: 'B', primaryColor: '#123456', language: 'de', avatarUrl: 'https://cdn.example.com/a.png', isActive: true },
    }),
    'PATCH /api/v1/bots/{id}': async () => ({
      path: `/api/v1/bots/${ids.ownerBotId}`,
      user: true,
      headers: userHeaders(owner),
      body: { name: 'B', primaryColor: '#123456', language: 'de', avatarUrl: 'https://cdn.example.com/a.png', isActive: true },
    }),
    'POST /admin/v1/users/{userId}/password-resets': async () => ({ path: `/admin/v1/users/${owner.id}/password-resets`, body: {} }),
    'POST /admin/v1/tenants': async () => ({ path: '/admin/v1/tenants', body: { name: 'Nulls', slug: `n-${randomUUID().slice(0, 8)}`, plan: 'pro' } }),
    'PATCH /admin/v1/tenants/{tenantId}': async () => ({ path: `/admin/v1/tenants/${ids.tenantId}`, body: { name: 'Renamed', plan: 'enterprise' } }),
    'POST /admin/v1/tenants/{tenantId}/api-keys': async () => ({
      path: `/admin/v1/tenants/${ids.tenantId}/api-keys`,
      body: { name: 'k', scopes: ['bots:read'], type: 'secret', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    }),
    'POST /admin/v1/tenants/{tenantId}/bots': async () => ({
      path: `/admin/v1/tenants/${ids.tenantId}/bots`,
      body: { name: 'B', primaryColor: '#123456', language: 'de', avatarUrl: 'https://cdn.example.com/a.png', isActive: true },
    }),
    'PATCH /admin/v1/tenants/{tenantId}/bots/{botId}': async () => ({
      path: `/admin/v1/tenants/${ids.tenantId}/bots/${ids.botId}`,
      body: { name: 'B', primaryColor: '#123456', language: 'de', avatarUrl: 'https://cdn.example.com/a.png', isActive: true },
    }),
    'POST /admin/v1/tenants/{tenantId}/bots/{botId}/documents': async () => ({
      path: `/admin/v1/tenants/${ids.tenantId}/bots/${ids.botId}/documents`,
      body: { title: 'T', content: 'C' },
    }),
    'POST /admin/v1/tenants/{tenantId}/bots/{botId}/conversations': async () => ({
      path: `/admin/v1/tenants/${ids.tenantId}/bots/${ids.botId}/conversations`,
      body: {
        status: 'ended',
        channel: 'widget',
        visitorId: 'v-1',
        createdAt: '2026-01-01T10:00:00Z',
        messages: [{ role: 'user', content: 'Hi', createdAt: '2026-01-01T10:00:01Z' }],
        lead: { name: 'Ada', email: 'ada@example.com', phone: '+1 555', company: 'Acme', message: 'Hi' },
      },
    }),
  });

  const bodyRoutes = Object.entries(DOCUMENT.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => operation.requestBody)
      .map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, schema: operation.requestBody!.content['application/json'].schema })),
  );

  it('has a valid body for every route the document gives a body', () => {
    expect(bodyRoutes.map(({ route }) => route).sort()).toEqual(Object.keys(validBodies()).sort());
  });

  it.each(bodyRoutes.map(({ route }) => route))(
    '%s: the valid body is accepted, and null in any field is a 400 on that field unless the document says it may be null',
    async (route) => {
      const { schema } = bodyRoutes.find((entry) => entry.route === route)!;
      const method = route.split(' ')[0].toLowerCase() as 'post' | 'patch' | 'put';
      const send = async (body: Record<string, unknown>) => {
        const { path, key, user, headers } = await validBodies()[route]();
        const test = key
          ? t
              .http()
              [method](path)
              .set('X-API-Key', key)
              .set(headers ?? {})
          : user
            ? t
                .http()
                [method](path)
                .set(headers ?? {})
            : t.admin()[method as 'post' | 'patch'](path);
        return test.send(body);
      };
      const valid = await validBodies()[route]();
      expect((await send(valid.body)).status).toBeLessThan(300);
      const outcomes: string[] = [];
      for (const [field, property] of fieldsOf(schema)) {
        const response = await send(withNull((await validBodies()[route]()).body, field));
        if (isNullable(property)) {
          outcomes.push(`${field}: ${response.status < 300 ? 'accepted' : response.status}`);
        } else {
          expectError(response, 400, 'VALIDATION_ERROR', [{ field, message: expect.any(String) }]);
          outcomes.push(`${field}: 400`);
        }
      }
      expect(outcomes.filter((outcome) => !/: (400|accepted)$/.test(outcome))).toEqual([]);
    },
  );

  describe('PATCH /api/v1/leads/:id with a write-only key', () => {
    let writeOnly: string;
    let readWrite: string;

    beforeAll(async () => {
      writeOnly = (await createKey(t, tenant.id, { scopes: ['leads:write'] })).key;
      readWrite = (await createKey(t, tenant.id, { scopes: ['leads:write', 'leads:read'] })).key;
    });

    it('answers 204 without a body, and the move is made', async () => {
      const lead = await createLead(t, tenant.key);
      const response = await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', writeOnly).send({ status: 'contacted' });
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers['x-ratelimit-remaining']).toEqual(expect.any(String));
      const stored = await t.http().get(`/api/v1/leads/${lead.id}`).set('X-API-Key', tenant.key).expect(200);
      expect(stored.body.lead.status).toBe('contacted');
      // A repeat of the same move (a no-op) is 204 as well: it reveals nothing either.
      expect((await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', writeOnly).send({ status: 'contacted' })).status).toBe(204);
    });

    it('answers 200 with the lead to a key that may also read leads', async () => {
      const lead = await createLead(t, tenant.key);
      const response = await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', readWrite).send({ status: 'qualified' }).expect(200);
      expect(response.body.lead).toMatchObject({ id: lead.id, status: 'qualified' });
    });

    it("does not reveal the lead's status in a 409 to a write-only key", async () => {
      const lead = await createLead(t, tenant.key);
      await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', readWrite).send({ status: 'qualified' }).expect(200);
      const refused = await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', writeOnly).send({ status: 'new' });
      expectError(refused, 409, 'INVALID_STATUS_TRANSITION');
      expect(refused.body.error.message).not.toMatch(/qualified/);
      const told = await t.http().patch(`/api/v1/leads/${lead.id}`).set('X-API-Key', readWrite).send({ status: 'new' });
      expectError(told, 409, 'INVALID_STATUS_TRANSITION');
      expect(told.body.error.message).toBe('A lead cannot move from qualified to new.');
    });
  });

  describe('avatarUrl is a public https URL', () => {
    it.each([
      ['http://cdn.example.com/a.png', 'must be an https URL'],
      ['https://user:secret@cdn.example.com/a.png', 'must not contain a user name or password'],
      ['https://localhost/a.png', 'must not point to localhost'],
      ['https://127.0.0.1/a.png', 'must not point to a private, loopback, link-local or reserved address'],
      ['https://10.1.2.3/a.png', 'must not point to a private, loopback, link-local or reserved address'],
      ['https://169.254.169.254/latest/meta-data', 'must not point to a private, loopback, link-local or reserved address'],
      ['https://[::1]/a.png', 'must not point to a private, loopback, link-local or reserved address'],
      ['https://[fd00::1]/a.png', 'must not point to a private, loopback, link-local or reserved address'],
      ['https://[::ffff:192.168.0.1]/a.png', 'must not point to a private, loopback, link-local or reserved address'],
    ])('refuses %s on create and update: %s', async (avatarUrl, message) => {
      expectError(await t.admin().post(`/admin/v1/tenants/${ids.tenantId}/bots`).send({ name: 'Avatar', avatarUrl }), 400, 'VALIDATION_ERROR', [
        { field: 'avatarUrl', message },
      ]);
      expectError(await t.admin().patch(`/admin/v1/tenants/${ids.tenantId}/bots/${ids.botId}`).send({ avatarUrl }), 400, 'VALIDATION_ERROR', [
        { field: 'avatarUrl', message },
      ]);
    });

    it('accepts a public https URL, and null clears it', async () => {
      const set = await t.admin().patch(`/admin/v1/tenants/${ids.tenantId}/bots/${ids.botId}`).send({ avatarUrl: 'https://8.8.8.8/a.png' }).expect(200);
      expect(set.body.bot.avatarUrl).toBe('https://8.8.8.8/a.png');
      const cleared = await t.admin().patch(`/admin/v1/tenants/${ids.tenantId}/bots/${ids.botId}`).send({ avatarUrl: null }).expect(200);
      expect(cleared.body.bot.avatarUrl).toBeNull();
    });
  });
});
