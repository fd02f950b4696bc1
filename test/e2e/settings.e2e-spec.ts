import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';

const DEFAULT_SETTINGS = {
  timezone: 'UTC',
  allowedOrigins: [],
  visitorMessageLimit: { messages: 20, windowSeconds: 60 },
  leadCapture: { enabled: true, requirePhone: false, requireCompany: false },
  // Enterprise: a tenth of its 250,000 messages a month.
  widgetLimits: { repliesPerIpPerDay: 200, repliesPerDay: 25_000, repliesPerDayIsDefault: true },
  retention: { conversationDays: null, leadDays: null },
  identityVerification: { configured: false, required: false },
};

describe('Settings: the tenant and its bots', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let botId: string;
  let otherBotId: string;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { plan: 'enterprise' });
    other = await createTenant(t, { plan: 'enterprise' });
    botId = (await createBot(t, tenant.id)).id;
    otherBotId = (await createBot(t, other.id)).id;
  });
  afterAll(() => t.close());

  const get = (path: string, key = tenant.key) => t.http().get(path).set('X-API-Key', key);
  const patch = (path: string, body: unknown, key = tenant.key) =>
    t
      .http()
      .patch(path)
      .set('X-API-Key', key)
      .send(body as object);
  const auditOf = (action: string, tenantId = tenant.id) => t.prisma.auditEvent.findMany({ where: { tenantId, action }, orderBy: { createdAt: 'asc' } });

  describe('GET and PATCH /api/v1/settings', () => {
    let fresh: TestTenant;
    beforeEach(async () => {
      fresh = await createTenant(t, { plan: 'enterprise' });
    });

    it('answers the defaults of a new tenant', async () => {
      expect((await get('/api/v1/settings', fresh.key).expect(200)).body).toEqual({ settings: DEFAULT_SETTINGS });
    });

    it('changes every field, answers and keeps the new settings, and audits the change with the key as actor', async () => {
      const body = {
        timezone: 'America/New_York',
        allowedOrigins: ['https://www.example.com', 'https://Shop.Example.com:8443', 'http://localhost:3000', 'https://www.example.com/'],
        visitorMessageLimit: { messages: 1000, windowSeconds: 86_400 },
        leadCapture: { enabled: false, requirePhone: true, requireCompany: true },
        widgetLimits: { repliesPerIpPerDay: 100_000, repliesPerDay: 250_000 },
        retention: { conversationDays: 30, leadDays: 3650 },
      };
      const expected = {
        timezone: 'America/New_York',
        allowedOrigins: ['https://www.example.com', 'https://shop.example.com:8443', 'http://localhost:3000'],
        visitorMessageLimit: { messages: 1000, windowSeconds: 86_400 },
        leadCapture: { enabled: false, requirePhone: true, requireCompany: true },
        widgetLimits: { repliesPerIpPerDay: 100_000, repliesPerDay: 250_000, repliesPerDayIsDefault: false },
        retention: { conversationDays: 30, leadDays: 3650 },
        identityVerification: { configured: false, required: false },
      };
      expect((await patch('/api/v1/settings', body, fresh.key).expect(200)).body).toEqual({ settings: expected });
      expect((await get('/api/v1/settings', fresh.key).expect(200)).body).toEqual({ settings: expected });
      const audit = await auditOf('settings.updated', fresh.id);
      expect(audit).toEqual([
        expect.objectContaining({ actor: `api-key:${fresh.keyId}`, targetType: 'tenant', targetId: fresh.id, requestId: expect.any(String) }),
      ]);
      expect((audit[0].data as { changes: Record<string, unknown> }).changes).toEqual({
        timezone: 'America/New_York',
        allowedOrigins: expected.allowedOrigins,
        visitorMessageLimit: 1000,
        visitorMessageWindowSeconds: 86_400,
        leadCaptureEnabled: false,
        leadCaptureRequirePhone: true,
        leadCaptureRequireCompany: true,
        widgetRepliesPerIpPerDay: 100_000,
        widgetRepliesPerDay: 250_000,
        conversationRetentionDays: 30,
        leadRetentionDays: 3650,
      });
    });

    it('keeps rows for ever again when a retention is set to null', async () => {
      await patch('/api/v1/settings', { retention: { conversationDays: 90, leadDays: 365 } }, fresh.key).expect(200);
      const answer = await patch('/api/v1/settings', { retention: { leadDays: null } }, fresh.key).expect(200);
      expect(answer.body.settings.retention).toEqual({ conversationDays: 90, leadDays: null });
    });

    it('changes only the nested fields sent', async () => {
      const answer = await patch('/api/v1/settings', { leadCapture: { requirePhone: true }, visitorMessageLimit: { windowSeconds: 30 } }, fresh.key).expect(
        200,
      );
      expect(answer.body.settings).toEqual({
        ...DEFAULT_SETTINGS,
        visitorMessageLimit: { messages: 20, windowSeconds: 30 },
        leadCapture: { enabled: true, requirePhone: true, requireCompany: false },
      });
    });

    it('writes and audits nothing when every value sent is the current one', async () => {
      const before = await t.prisma.tenant.findUniqueOrThrow({ where: { id: fresh.id } });
      expect((await patch('/api/v1/settings', { timezone: 'UTC', allowedOrigins: [], leadCapture: { enabled: true } }, fresh.key).expect(200)).body).toEqual({
        settings: DEFAULT_SETTINGS,
      });
      expect((await t.prisma.tenant.findUniqueOrThrow({ where: { id: fresh.id } })).updatedAt).toEqual(before.updatedAt);
      expect(await auditOf('settings.updated', fresh.id)).toEqual([]);
    });

    it('clears the allowed origins with []', async () => {
      await patch('/api/v1/settings', { allowedOrigins: ['https://a.example.com'] }, fresh.key).expect(200);
      expect((await patch('/api/v1/settings', { allowedOrigins: [] }, fresh.key).expect(200)).body.settings.allowedOrigins).toEqual([]);
    });

    it.each([
      [{}, 'body', 'must have at least one field to change'],
      [{ timezone: 'Mars/Olympus' }, 'timezone', 'must be an IANA time zone name such as Europe/Berlin or UTC'],
      [{ timezone: '+02:00' }, 'timezone', 'must be an IANA time zone name such as Europe/Berlin or UTC'],
      [{ timezone: 'Europe' }, 'timezone', 'must be an IANA time zone name such as Europe/Berlin or UTC'],
      // Known to Node's ICU (an alias of America/Los_Angeles), not to the database's tz data.
      [{ timezone: 'US/Pacific-New' }, 'timezone', 'must be an IANA time zone name such as Europe/Berlin or UTC'],
      [{ timezone: 1 }, 'timezone', 'must be a string'],
      [{ timezone: null }, 'timezone', 'must be a string'],
      [{ allowedOrigins: 'https://example.com' }, 'allowedOrigins', 'must be an array of origins'],
      [{ allowedOrigins: null }, 'allowedOrigins', 'must be an array of origins'],
      [{ allowedOrigins: ['http://example.com'] }, 'allowedOrigins', 'each entry must be an origin such as https://www.example.com (no path, no wildcard)'],
      [
        { allowedOrigins: ['https://example.com/shop'] },
        'allowedOrigins',
        'each entry must be an origin such as https://www.example.com (no path, no wildcard)',
      ],
      [{ allowedOrigins: ['https://*.example.com'] }, 'allowedOrigins', 'each entry must be an origin such as https://www.example.com (no path, no wildcard)'],
      [
        { allowedOrigins: ['https://user:pw@example.com'] },
        'allowedOrigins',
        'each entry must be an origin such as https://www.example.com (no path, no wildcard)',
      ],
      [
        { allowedOrigins: ['https://example.com?x=1'] },
        'allowedOrigins',
        'each entry must be an origin such as https://www.example.com (no path, no wildcard)',
      ],
      [{ allowedOrigins: ['example.com'] }, 'allowedOrigins', 'each entry must be an origin such as https://www.example.com (no path, no wildcard)'],
      [{ allowedOrigins: [42] }, 'allowedOrigins', 'each entry must be an origin such as https://www.example.com (no path, no wildcard)'],
      [{ allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://s${i}.example.com`) }, 'allowedOrigins', 'must have at most 50 entries'],
      [{ visitorMessageLimit: { messages: 0 } }, 'visitorMessageLimit.messages', 'must be at least 1'],
      [{ visitorMessageLimit: { messages: 1001 } }, 'visitorMessageLimit.messages', 'must be at most 1000'],
      [{ visitorMessageLimit: { messages: 1.5 } }, 'visitorMessageLimit.messages', 'must be an integer'],
      [{ visitorMessageLimit: { windowSeconds: 86_401 } }, 'visitorMessageLimit.windowSeconds', 'must be at most 86400'],
      [{ visitorMessageLimit: { windowSeconds: null } }, 'visitorMessageLimit.windowSeconds', 'must be an integer'],
      [{ visitorMessageLimit: { perMinute: 5 } }, 'visitorMessageLimit.perMinute', 'is not an allowed field'],
      [{ leadCapture: { enabled: 'yes' } }, 'leadCapture.enabled', 'must be true or false'],
      [{ leadCapture: null }, 'leadCapture', 'must not be null'],
      [{ plan: 'enterprise' }, 'plan', 'is not an allowed field'],
      [{ widgetLimits: { repliesPerIpPerDay: 0 } }, 'widgetLimits.repliesPerIpPerDay', 'must be at least 1'],
      [{ widgetLimits: { repliesPerIpPerDay: 100_001 } }, 'widgetLimits.repliesPerIpPerDay', 'must be at most 100000'],
      [{ widgetLimits: { repliesPerIpPerDay: '50' } }, 'widgetLimits.repliesPerIpPerDay', 'must be an integer'],
      [{ widgetLimits: { repliesPerIpPerDay: null } }, 'widgetLimits.repliesPerIpPerDay', 'must be an integer'],
      [{ widgetLimits: { perHour: 5 } }, 'widgetLimits.perHour', 'is not an allowed field'],
      [{ widgetLimits: { repliesPerDay: 0 } }, 'widgetLimits.repliesPerDay', "must be at least 1 (or null: the plan's default)"],
      [{ widgetLimits: { repliesPerDay: 2.5 } }, 'widgetLimits.repliesPerDay', 'must be an integer or null'],
      [{ widgetLimits: { repliesPerDay: '50' } }, 'widgetLimits.repliesPerDay', 'must be an integer or null'],
      [{ widgetLimits: { repliesPerDay: 250_001 } }, 'widgetLimits.repliesPerDay', "must be at most 250000 (the plan's messages a month)"],
      [{ widgetLimits: null }, 'widgetLimits', 'must not be null'],
      [{ retention: { conversationDays: 29 } }, 'retention.conversationDays', 'must be at least 30 (or null: kept for ever)'],
      [{ retention: { leadDays: 3651 } }, 'retention.leadDays', 'must be at most 3650 (or null: kept for ever)'],
      [{ retention: { leadDays: 45.5 } }, 'retention.leadDays', 'must be an integer or null'],
      [{ retention: { leadDays: '45' } }, 'retention.leadDays', 'must be an integer or null'],
      [{ retention: { keepDays: 45 } }, 'retention.keepDays', 'is not an allowed field'],
      [{ retention: null }, 'retention', 'must not be null'],
    ])('refuses %j with one detail naming the rule, and changes nothing', async (body, field, message) => {
      expectError(await patch('/api/v1/settings', body, fresh.key), 400, 'VALIDATION_ERROR', [{ field, message }]);
      expect((await get('/api/v1/settings', fresh.key).expect(200)).body).toEqual({ settings: DEFAULT_SETTINGS });
    });

    it('changes widgetLimits alone, down to 1 reply a day', async () => {
      expect((await patch('/api/v1/settings', { widgetLimits: { repliesPerIpPerDay: 1 } }, fresh.key).expect(200)).body.settings).toEqual({
        ...DEFAULT_SETTINGS,
        widgetLimits: { ...DEFAULT_SETTINGS.widgetLimits, repliesPerIpPerDay: 1 },
      });
    });

    it("bounds widgetLimits.repliesPerDay by the plan's messages a month, and null brings back the plan's default", async () => {
      const pro = await createTenant(t, { plan: 'pro' });
      const widgetLimits = async () => (await get('/api/v1/settings', pro.key).expect(200)).body.settings.widgetLimits as unknown;
      // Pro: 10,000 messages a month, so 1,000 replies a day by default and at most 10,000.
      expect(await widgetLimits()).toEqual({ repliesPerIpPerDay: 200, repliesPerDay: 1_000, repliesPerDayIsDefault: true });
      expectError(await patch('/api/v1/settings', { widgetLimits: { repliesPerDay: 10_001 } }, pro.key), 400, 'VALIDATION_ERROR', [
        { field: 'widgetLimits.repliesPerDay', message: "must be at most 10000 (the plan's messages a month)" },
      ]);
      await patch('/api/v1/settings', { widgetLimits: { repliesPerDay: 10_000 } }, pro.key).expect(200);
      expect(await widgetLimits()).toEqual({ repliesPerIpPerDay: 200, repliesPerDay: 10_000, repliesPerDayIsDefault: false });
      await patch('/api/v1/settings', { widgetLimits: { repliesPerDay: null } }, pro.key).expect(200);
      expect(await widgetLimits()).toEqual({ repliesPerIpPerDay: 200, repliesPerDay: 1_000, repliesPerDayIsDefault: true });
      const audit = await auditOf('settings.updated', pro.id);
      expect(audit.map((event) => (event.data as { changes: Record<string, unknown> }).changes)).toEqual([
        { widgetRepliesPerDay: 10_000 },
        { widgetRepliesPerDay: null },
      ]);
    });

    it('accepts the edges: 50 origins, 1 message per second, and time zones by current name, alias or any letter case', async () => {
      const origins = Array.from({ length: 50 }, (_, i) => `https://s${i}.example.com`);
      const answer = await patch(
        '/api/v1/settings',
        { allowedOrigins: origins, visitorMessageLimit: { messages: 1, windowSeconds: 1 }, timezone: 'America/Argentina/Buenos_Aires' },
        fresh.key,
      ).expect(200);
      expect(answer.body.settings).toMatchObject({
        allowedOrigins: origins,
        visitorMessageLimit: { messages: 1, windowSeconds: 1 },
        timezone: 'America/Argentina/Buenos_Aires',
      });
      for (const [sent, stored] of [
        ['Asia/Kolkata', 'Asia/Kolkata'],
        ['Asia/Calcutta', 'Asia/Calcutta'],
        ['europe/berlin', 'Europe/Berlin'],
        ['Etc/GMT+2', 'Etc/GMT+2'],
        ['UTC', 'UTC'],
      ]) {
        expect((await patch('/api/v1/settings', { timezone: sent }, fresh.key).expect(200)).body.settings.timezone).toBe(stored);
      }
    });

    it('refuses a time zone the database does not know, so analytics keeps answering 200', async () => {
      await patch('/api/v1/settings', { timezone: 'Asia/Tokyo' }, fresh.key).expect(200);
      expectError(await patch('/api/v1/settings', { timezone: 'US/Pacific-New' }, fresh.key), 400, 'VALIDATION_ERROR', [
        { field: 'timezone', message: 'must be an IANA time zone name such as Europe/Berlin or UTC' },
      ]);
      expect((await get('/api/v1/settings', fresh.key).expect(200)).body.settings.timezone).toBe('Asia/Tokyo');
      await get('/api/v1/analytics/overview', fresh.key).expect(200);
      expect((await get('/api/v1/analytics/timeseries?metric=leads', fresh.key).expect(200)).body.timezone).toBe('Asia/Tokyo');
    });

    it("keeps each tenant's settings its own", async () => {
      await patch('/api/v1/settings', { timezone: 'Asia/Tokyo' }, fresh.key).expect(200);
      expect((await get('/api/v1/settings', other.key).expect(200)).body.settings.timezone).toBe('UTC');
    });
  });

  describe('GET and PATCH /api/v1/bots/:id/settings', () => {
    it('answers the defaults, then changes every field and audits it', async () => {
      const bot = (await createBot(t, tenant.id)).id;
      const defaults = (await get(`/api/v1/bots/${bot}/settings`).expect(200)).body.settings;
      expect(defaults).toEqual({
        welcomeMessage: expect.any(String),
        suggestedQuestions: [],
        fallbackMessage: expect.any(String),
        showSources: true,
        synonyms: [],
        handoff: { enabled: false, onFallback: false, message: expect.any(String) },
      });
      const body = {
        welcomeMessage: ' Hello! ',
        suggestedQuestions: [' What does it cost? ', 'q'.repeat(200)],
        fallbackMessage: 'f'.repeat(500),
        showSources: false,
        synonyms: [' bill = invoice, receipt ', 'CPU,processor'],
        handoff: { enabled: true, onFallback: true, message: ' A person joins you. ' },
      };
      const expected = {
        welcomeMessage: 'Hello!',
        suggestedQuestions: ['What does it cost?', 'q'.repeat(200)],
        fallbackMessage: 'f'.repeat(500),
        showSources: false,
        synonyms: ['bill = invoice, receipt', 'CPU,processor'],
        handoff: { enabled: true, onFallback: true, message: 'A person joins you.' },
      };
      expect((await patch(`/api/v1/bots/${bot}/settings`, body).expect(200)).body).toEqual({ settings: expected });
      expect((await get(`/api/v1/bots/${bot}/settings`).expect(200)).body).toEqual({ settings: expected });
      expect(await auditOf('bot.settings_updated')).toContainEqual(
        expect.objectContaining({ actor: `api-key:${tenant.keyId}`, targetType: 'bot', targetId: bot }),
      );
    });

    it.each([null, '', '   '])('clears the welcome message sent as %j', async (welcomeMessage) => {
      expect((await patch(`/api/v1/bots/${botId}/settings`, { welcomeMessage }).expect(200)).body.settings.welcomeMessage).toBeNull();
    });

    it('writes and audits nothing when the values are the current ones', async () => {
      const bot = (await createBot(t, tenant.id)).id;
      const current = (await get(`/api/v1/bots/${bot}/settings`).expect(200)).body.settings;
      const before = await t.prisma.bot.findUniqueOrThrow({ where: { id: bot } });
      expect((await patch(`/api/v1/bots/${bot}/settings`, current).expect(200)).body.settings).toEqual(current);
      expect((await t.prisma.bot.findUniqueOrThrow({ where: { id: bot } })).updatedAt).toEqual(before.updatedAt);
      expect((await auditOf('bot.settings_updated')).filter((event) => event.targetId === bot)).toEqual([]);
    });

    it.each([
      [{}, 'body', 'must have at least one field to change'],
      [{ welcomeMessage: 'w'.repeat(501) }, 'welcomeMessage', 'must be at most 500 characters'],
      [{ suggestedQuestions: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'suggestedQuestions', 'must have at most 5 entries'],
      [{ suggestedQuestions: ['ok', ' '] }, 'suggestedQuestions', 'each entry must be 1 to 200 characters'],
      [{ suggestedQuestions: ['q'.repeat(201)] }, 'suggestedQuestions', 'each entry must be 1 to 200 characters'],
      [{ suggestedQuestions: null }, 'suggestedQuestions', 'must be an array of strings'],
      [{ fallbackMessage: '' }, 'fallbackMessage', 'must be 1 to 500 characters'],
      [{ fallbackMessage: null }, 'fallbackMessage', 'must be a string'],
      [{ showSources: 'no' }, 'showSources', 'must be true or false'],
      [{ synonyms: ['bill invoice'] }, 'synonyms', 'each entry must be two or more words or phrases separated by = or , (e.g. "bill = invoice")'],
      [{ synonyms: ['bill = '] }, 'synonyms', 'each entry must be two or more words or phrases separated by = or , (e.g. "bill = invoice")'],
      [{ synonyms: [`a = ${'b'.repeat(200)}`] }, 'synonyms', 'each entry must be 3 to 200 characters'],
      [{ synonyms: Array.from({ length: 101 }, () => 'a = b') }, 'synonyms', 'must have at most 100 entries'],
      [{ isActive: false }, 'isActive', 'is not an allowed field'],
    ])('refuses %j with one detail naming the rule', async (body, field, message) => {
      expectError(await patch(`/api/v1/bots/${botId}/settings`, body), 400, 'VALIDATION_ERROR', [{ field, message }]);
    });

    it("is 404 for another tenant's bot, an unknown id and a non-UUID, and changes nothing there", async () => {
      const theirs = (await get(`/api/v1/bots/${otherBotId}/settings`, other.key).expect(200)).body;
      for (const id of [otherBotId, '00000000-0000-7000-8000-000000000000', 'bot-1']) {
        expectError(await get(`/api/v1/bots/${id}/settings`), 404, 'NOT_FOUND');
        expectError(await patch(`/api/v1/bots/${id}/settings`, { showSources: false }), 404, 'NOT_FOUND');
      }
      expect((await get(`/api/v1/bots/${otherBotId}/settings`, other.key).expect(200)).body).toEqual(theirs);
    });
  });

  describe('scopes', () => {
    it('reads with settings:read and writes with settings:write only', async () => {
      const reader = await createKey(t, tenant.id, { scopes: ['settings:read'] });
      const writer = await createKey(t, tenant.id, { scopes: ['settings:write'] });
      await get('/api/v1/settings', reader.key).expect(200);
      await get(`/api/v1/bots/${botId}/settings`, reader.key).expect(200);
      expectError(await patch('/api/v1/settings', { timezone: 'UTC' }, reader.key), 403, 'INSUFFICIENT_SCOPE');
      expectError(await patch(`/api/v1/bots/${botId}/settings`, { showSources: true }, reader.key), 403, 'INSUFFICIENT_SCOPE');
      expectError(await get('/api/v1/settings', writer.key), 403, 'INSUFFICIENT_SCOPE');
      await patch('/api/v1/settings', { timezone: 'UTC' }, writer.key).expect(200);
    });

    it('refuses public keys', async () => {
      const publicKey = await createKey(t, tenant.id, { type: 'public' });
      expect((await get('/api/v1/settings', publicKey.key)).status).toBe(403);
    });
  });
});
