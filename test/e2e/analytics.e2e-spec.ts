import { randomUUID } from 'node:crypto';
import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, recordConversation, TestTenant } from '../support/factories';

type Role = 'user' | 'assistant' | 'agent';
type Query = Record<string, string>;

const DAY = 86_400_000;
const zeroFigures = (range: { from: string; to: string }) => ({
  range,
  conversations: 0,
  messages: { user: 0, assistant: 0, agent: 0 },
  leads: 0,
  uniqueVisitors: 0,
  leadConversionRate: 0,
  unansweredRate: 0,
  avgMessagesPerConversation: 0,
  handoffRate: 0,
  medianFirstAgentResponseSeconds: null,
});

/** Every day from `first` to `last` (YYYY-MM-DD), with the counts given and 0 elsewhere. */
function days(first: string, last: string, counts: Record<string, number> = {}): { period: string; count: number }[] {
  const points: { period: string; count: number }[] = [];
  for (let day = Date.parse(`${first}T00:00:00Z`); day <= Date.parse(`${last}T00:00:00Z`); day += DAY) {
    const period = new Date(day).toISOString().slice(0, 10);
    points.push({ period, count: counts[period] ?? 0 });
  }
  return points;
}

/** GET /api/v1/analytics/* (API_DECISIONS, Analytics): scope analytics:read. */
describe('Analytics', () => {
  let t: TestApp;
  /** A tenant in New York with two bots and a January and December of known activity. */
  let tenant: TestTenant;
  /** A tenant in UTC with a little activity of its own. */
  let other: TestTenant;
  let bot1: string;
  let bot2: string;
  let otherBot: string;

  const get = (key: string, path: 'overview' | 'timeseries', query: Query = {}) => {
    const search = new URLSearchParams(query).toString();
    return t
      .http()
      .get(`/api/v1/analytics/${path}${search ? `?${search}` : ''}`)
      .set('X-API-Key', key);
  };
  const setTimeZone = (tenantId: string, timezone: string) => t.prisma.tenant.update({ where: { id: tenantId }, data: { timezone }, select: { id: true } });

  async function conversation(
    tenantId: string,
    botId: string,
    createdAt: string,
    visitorId: string | null,
    messages: [Role, string, boolean?][] = [],
  ): Promise<string> {
    const { id } = await t.prisma.conversation.create({ data: { tenantId, botId, createdAt: new Date(createdAt), visitorId }, select: { id: true } });
    if (messages.length) {
      await t.prisma.message.createMany({
        data: messages.map(([role, at, unanswered]) => ({
          tenantId,
          conversationId: id,
          role,
          content: `${role} message`,
          createdAt: new Date(at),
          unanswered: unanswered ?? false,
        })),
      });
    }
    return id;
  }

  async function lead(tenantId: string, botId: string | null, conversationId: string | null, createdAt: string): Promise<string> {
    const data = {
      tenantId,
      botId,
      conversationId,
      name: 'Lead',
      email: `lead-${randomUUID().slice(0, 8)}@example.com`,
      source: conversationId ? 'widget' : 'api',
      createdAt: new Date(createdAt),
    } as const;
    return (await t.prisma.lead.create({ data, select: { id: true } })).id;
  }

  const linkLead = (conversationId: string, leadId: string) =>
    t.prisma.conversation.update({ where: { id: conversationId }, data: { leadId }, select: { id: true } });

  beforeAll(async () => {
    t = await createTestApp();
    [tenant, other] = await Promise.all([createTenant(t, { plan: 'enterprise' }), createTenant(t, { plan: 'enterprise' })]);
    await setTimeZone(tenant.id, 'America/New_York');
    [bot1, bot2, otherBot] = [(await createBot(t, tenant.id)).id, (await createBot(t, tenant.id)).id, (await createBot(t, other.id)).id];

    // January 2026 in New York is 2026-01-01T05:00Z to 2026-02-01T04:59:59.999Z; December 2025 starts at 2025-12-01T05:00Z.
    const c1 = await conversation(tenant.id, bot1, '2026-01-05T15:00:00Z', 'v1', [
      ['user', '2026-01-05T15:00:01Z'],
      ['assistant', '2026-01-05T15:00:02Z', true],
      ['user', '2026-01-05T15:01:00Z'],
      ['assistant', '2026-01-05T15:01:01Z'],
    ]);
    // 03:00 UTC on 6 January is 22:00 on 5 January in New York.
    await conversation(tenant.id, bot1, '2026-01-06T03:00:00Z', 'v1', [
      ['user', '2026-01-06T03:00:00Z'],
      ['assistant', '2026-01-06T03:00:01Z'],
      ['agent', '2026-01-06T03:05:00Z'],
    ]);
    const c3 = await conversation(tenant.id, bot2, '2026-01-20T12:00:00Z', 'v2', [
      ['user', '2026-01-20T12:00:01Z'],
      ['assistant', '2026-01-20T12:00:02Z', true],
    ]);
    await conversation(tenant.id, bot2, '2026-01-31T23:00:00Z', null);
    await conversation(tenant.id, bot1, '2026-02-01T04:30:00Z', 'v3');
    // Created on 31 December in New York (previous range); its second message is the first instant of January there.
    await conversation(tenant.id, bot1, '2026-01-01T03:00:00Z', 'v9', [
      ['user', '2026-01-01T03:00:01Z'],
      ['assistant', '2026-01-01T05:00:00Z'],
    ]);
    const c7 = await conversation(tenant.id, bot2, '2025-12-10T12:00:00Z', 'v9', [
      ['user', '2025-12-10T12:00:01Z'],
      ['assistant', '2025-12-10T12:00:02Z', true],
    ]);
    // Midnight of 1 February in New York: in no range.
    await conversation(tenant.id, bot1, '2026-02-01T05:00:00Z', 'v4', [['user', '2026-02-01T05:00:01Z']]);

    // c1 has a lead by its leadId, c3 only by the lead's conversationId.
    await linkLead(c1, await lead(tenant.id, bot1, c1, '2026-01-05T15:02:00Z'));
    await lead(tenant.id, bot2, c3, '2026-01-20T12:05:00Z');
    await lead(tenant.id, null, null, '2026-01-15T10:00:00Z');
    await lead(tenant.id, null, null, '2026-02-01T04:59:59.999Z');
    await linkLead(c7, await lead(tenant.id, bot2, c7, '2025-12-10T12:03:00Z'));

    await conversation(other.id, otherBot, '2026-01-10T10:00:00Z', 'o1', [
      ['user', '2026-01-10T10:00:01Z'],
      ['assistant', '2026-01-10T10:00:02Z', true],
    ]);
    await lead(other.id, otherBot, null, '2026-01-10T11:00:00Z');
  });
  afterAll(() => t.close());

  const JANUARY = { from: '2026-01-01', to: '2026-01-31' };
  const JANUARY_RANGE = { from: '2026-01-01T05:00:00.000Z', to: '2026-02-01T04:59:59.999Z' };
  const DECEMBER_RANGE = { from: '2025-12-01T05:00:00.000Z', to: '2026-01-01T04:59:59.999Z' };

  describe('GET /api/v1/analytics/overview', () => {
    it('answers the figures of the range, days in the tenant’s time zone, and of the range just before', async () => {
      const response = await get(tenant.key, 'overview', JANUARY).expect(200);
      expect(response.body).toStrictEqual({
        range: JANUARY_RANGE,
        conversations: 5,
        messages: { user: 4, assistant: 5, agent: 1 },
        leads: 4,
        uniqueVisitors: 3,
        leadConversionRate: 0.4,
        unansweredRate: 0.4,
        avgMessagesPerConversation: 2,
        handoffRate: 0,
        medianFirstAgentResponseSeconds: null,
        previous: {
          range: DECEMBER_RANGE,
          conversations: 2,
          messages: { user: 2, assistant: 1, agent: 0 },
          leads: 1,
          uniqueVisitors: 1,
          leadConversionRate: 0.5,
          unansweredRate: 1,
          avgMessagesPerConversation: 1.5,
          handoffRate: 0,
          medianFirstAgentResponseSeconds: null,
        },
      });
    });

    it('counts one bot’s conversations and leads, and the messages of its conversations; a rate without divisor is 0', async () => {
      const response = await get(tenant.key, 'overview', { ...JANUARY, botId: bot1 }).expect(200);
      expect(response.body).toStrictEqual({
        range: JANUARY_RANGE,
        conversations: 3,
        messages: { user: 3, assistant: 4, agent: 1 },
        leads: 1,
        uniqueVisitors: 2,
        leadConversionRate: 1 / 3,
        unansweredRate: 0.25,
        avgMessagesPerConversation: 8 / 3,
        handoffRate: 0,
        medianFirstAgentResponseSeconds: null,
        previous: {
          range: DECEMBER_RANGE,
          conversations: 1,
          messages: { user: 1, assistant: 0, agent: 0 },
          leads: 0,
          uniqueVisitors: 1,
          leadConversionRate: 0,
          unansweredRate: 0,
          avgMessagesPerConversation: 1,
          handoffRate: 0,
          medianFirstAgentResponseSeconds: null,
        },
      });
      const bot2Figures = (await get(tenant.key, 'overview', { ...JANUARY, botId: bot2 }).expect(200)).body;
      expect(bot2Figures).toMatchObject({
        conversations: 2,
        messages: { user: 1, assistant: 1, agent: 0 },
        leads: 1,
        uniqueVisitors: 1,
        leadConversionRate: 0.5,
        unansweredRate: 1,
        avgMessagesPerConversation: 1,
      });
    });

    it('takes date-times as instants, and the previous range has the same length', async () => {
      const response = await get(tenant.key, 'overview', { from: '2026-01-05T15:00:00Z', to: '2026-01-06T03:00:00Z' }).expect(200);
      expect(response.body).toMatchObject({
        range: { from: '2026-01-05T15:00:00.000Z', to: '2026-01-06T03:00:00.000Z' },
        conversations: 2,
        messages: { user: 3, assistant: 2, agent: 0 },
        leads: 1,
        previous: { range: { from: '2026-01-05T02:59:59.999Z', to: '2026-01-05T14:59:59.999Z' }, conversations: 0 },
      });
    });

    it('gives zeros for a bot of another tenant, and never counts another tenant’s rows', async () => {
      const foreign = await get(tenant.key, 'overview', { ...JANUARY, botId: otherBot }).expect(200);
      expect(foreign.body).toStrictEqual({ ...zeroFigures(JANUARY_RANGE), previous: zeroFigures(DECEMBER_RANGE) });
      const own = await get(other.key, 'overview', JANUARY).expect(200);
      expect(own.body).toStrictEqual({
        ...zeroFigures({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T23:59:59.999Z' }),
        conversations: 1,
        messages: { user: 1, assistant: 1, agent: 0 },
        leads: 1,
        uniqueVisitors: 1,
        unansweredRate: 1,
        avgMessagesPerConversation: 2,
        previous: zeroFigures({ from: '2025-12-01T00:00:00.000Z', to: '2025-12-31T23:59:59.999Z' }),
      });
      const empty = await createTenant(t, { plan: 'pro', scopes: ['analytics:read'] });
      expect((await get(empty.key, 'overview', JANUARY).expect(200)).body).toStrictEqual({
        ...zeroFigures({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T23:59:59.999Z' }),
        previous: zeroFigures({ from: '2025-12-01T00:00:00.000Z', to: '2025-12-31T23:59:59.999Z' }),
      });
    });

    it('answers the share of conversations handed off and the median seconds to the first agent message after the handoff', async () => {
      const helped = await createTenant(t, { plan: 'enterprise' });
      const botId = (await createBot(t, helped.id)).id;
      const api = (path: string) => t.http().post(`/api/v1/conversations/${path}`).set('X-API-Key', helped.key);
      /** A conversation recorded, handed off and answered through the API, then moved to known instants (the API stamps the present). */
      const handedOff = async (createdAt: string, answers: [number, ...number[]] | [], options: { release?: boolean; agentFirst?: boolean } = {}) => {
        const { id } = await recordConversation(t, helped.id, botId);
        if (!options.agentFirst) await api(`${id}/handoff`).send({}).expect(200);
        for (const _ of answers) await api(`${id}/messages`).send({ content: 'A person here.', authorName: 'Ada' }).expect(201);
        if (options.release) await api(`${id}/release`).send({}).expect(200);
        const handedOffAt = new Date(Date.parse(createdAt) + 60_000);
        await t.prisma.conversation.update({ where: { id }, data: { createdAt: new Date(createdAt), handedOffAt }, select: { id: true } });
        const agentMessages = await t.prisma.message.findMany({ where: { conversationId: id, role: 'agent' }, orderBy: { id: 'asc' }, select: { id: true } });
        for (const [i, message] of agentMessages.entries()) {
          await t.prisma.message.update({
            where: { id: message.id },
            data: { createdAt: new Date(handedOffAt.getTime() + answers[i]! * 1000) },
            select: { id: true },
          });
        }
        return id;
      };
      await handedOff('2026-03-02T10:00:00Z', [30]);
      await handedOff('2026-03-05T10:00:00Z', [90, 95]);
      await handedOff('2026-03-09T10:00:00Z', [10], { release: true });
      // Taken over by an agent's message, which hands it off at that instant: answered in 0 seconds.
      await handedOff('2026-03-12T10:00:00Z', [0], { agentFirst: true });
      // Still waiting for a person: handed off, not answered.
      await handedOff('2026-03-20T10:00:00Z', []);
      const botOnly = await recordConversation(t, helped.id, botId);
      await t.prisma.conversation.update({ where: { id: botOnly.id }, data: { createdAt: new Date('2026-03-25T10:00:00Z') }, select: { id: true } });
      // The previous range (29 January to 28 February): one handoff, answered in 45.5 seconds.
      await handedOff('2026-02-20T10:00:00Z', [45.5]);

      const march = (await get(helped.key, 'overview', { from: '2026-03-01', to: '2026-03-31' }).expect(200)).body;
      expect(march).toMatchObject({
        conversations: 6,
        handoffRate: 5 / 6,
        medianFirstAgentResponseSeconds: 20,
        previous: { conversations: 1, handoffRate: 1, medianFirstAgentResponseSeconds: 45.5 },
      });
      // An odd number of answered handoffs: the middle one.
      expect((await get(helped.key, 'overview', { from: '2026-03-03', to: '2026-03-31' }).expect(200)).body).toMatchObject({
        conversations: 5,
        handoffRate: 4 / 5,
        medianFirstAgentResponseSeconds: 10,
      });
      // Handed off but nobody has answered yet: a rate, and no median.
      expect((await get(helped.key, 'overview', { from: '2026-03-15', to: '2026-03-31' }).expect(200)).body).toMatchObject({
        conversations: 2,
        handoffRate: 0.5,
        medianFirstAgentResponseSeconds: null,
      });
      // Another tenant's handoffs never count.
      expect((await get(other.key, 'overview', { from: '2026-03-01', to: '2026-03-31' }).expect(200)).body).toMatchObject({
        handoffRate: 0,
        medianFirstAgentResponseSeconds: null,
      });
    });

    it('defaults to the 30 days ending now', async () => {
      const before = Date.now();
      const response = await get(other.key, 'overview').expect(200);
      const { from, to } = response.body.range;
      expect(Date.parse(to)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(to)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(to) - Date.parse(from)).toBe(30 * DAY - 1);
      expect(response.body.previous.range).toEqual({
        from: new Date(Date.parse(from) - 30 * DAY).toISOString(),
        to: new Date(Date.parse(from) - 1).toISOString(),
      });
    });
  });

  describe('GET /api/v1/analytics/timeseries', () => {
    it('counts conversations per day of the tenant’s time zone, every day present', async () => {
      const response = await get(tenant.key, 'timeseries', { metric: 'conversations', ...JANUARY }).expect(200);
      expect(response.body).toStrictEqual({
        metric: 'conversations',
        interval: 'day',
        timezone: 'America/New_York',
        points: days('2026-01-01', '2026-01-31', { '2026-01-05': 2, '2026-01-20': 1, '2026-01-31': 2 }),
      });
    });

    it('counts in UTC, and says so, for a stored time zone the database does not know (saved before settings checked it)', async () => {
      const old = await createTenant(t, { plan: 'pro' });
      await setTimeZone(old.id, 'US/Pacific-New');
      await get(old.key, 'overview', JANUARY).expect(200);
      expect((await get(old.key, 'timeseries', { metric: 'conversations', ...JANUARY }).expect(200)).body).toMatchObject({
        timezone: 'UTC',
        points: days('2026-01-01', '2026-01-31', {}),
      });
    });

    it('reads the time zone on every request: a change shows at once', async () => {
      try {
        await setTimeZone(tenant.id, 'UTC');
        const response = await get(tenant.key, 'timeseries', { metric: 'conversations', ...JANUARY }).expect(200);
        expect(response.body).toStrictEqual({
          metric: 'conversations',
          interval: 'day',
          timezone: 'UTC',
          points: days('2026-01-01', '2026-01-31', { '2026-01-01': 1, '2026-01-05': 1, '2026-01-06': 1, '2026-01-20': 1, '2026-01-31': 1 }),
        });
      } finally {
        await setTimeZone(tenant.id, 'America/New_York');
      }
    });

    it('counts messages per ISO week from Monday, the first and last weeks within the range only', async () => {
      const response = await get(tenant.key, 'timeseries', { metric: 'messages', interval: 'week', ...JANUARY }).expect(200);
      expect(response.body).toStrictEqual({
        metric: 'messages',
        interval: 'week',
        timezone: 'America/New_York',
        points: [
          { period: '2025-12-29', count: 1 },
          { period: '2026-01-05', count: 7 },
          { period: '2026-01-12', count: 0 },
          { period: '2026-01-19', count: 2 },
          { period: '2026-01-26', count: 0 },
        ],
      });
    });

    it('counts leads and distinct visitors per month', async () => {
      const range = { from: '2025-12-01', to: '2026-02-28' };
      const leads = await get(tenant.key, 'timeseries', { metric: 'leads', interval: 'month', ...range }).expect(200);
      expect(leads.body.points).toStrictEqual([
        { period: '2025-12-01', count: 1 },
        { period: '2026-01-01', count: 4 },
        { period: '2026-02-01', count: 0 },
      ]);
      const visitors = await get(tenant.key, 'timeseries', { metric: 'visitors', interval: 'month', ...range }).expect(200);
      expect(visitors.body.points).toStrictEqual([
        { period: '2025-12-01', count: 1 },
        { period: '2026-01-01', count: 3 },
        { period: '2026-02-01', count: 1 },
      ]);
      const daily = await get(tenant.key, 'timeseries', { metric: 'visitors', ...JANUARY }).expect(200);
      expect(daily.body.points).toStrictEqual(days('2026-01-01', '2026-01-31', { '2026-01-05': 1, '2026-01-20': 1, '2026-01-31': 1 }));
    });

    it('filters by bot; a bot of another tenant gives zeros', async () => {
      const bot2Messages = await get(tenant.key, 'timeseries', { metric: 'messages', botId: bot2, ...JANUARY }).expect(200);
      expect(bot2Messages.body.points).toStrictEqual(days('2026-01-01', '2026-01-31', { '2026-01-20': 2 }));
      const foreign = await get(tenant.key, 'timeseries', { metric: 'messages', botId: otherBot, ...JANUARY }).expect(200);
      expect(foreign.body.points).toStrictEqual(days('2026-01-01', '2026-01-31'));
      const otherLeads = await get(other.key, 'timeseries', { metric: 'leads', interval: 'month', ...JANUARY }).expect(200);
      expect(otherLeads.body).toStrictEqual({ metric: 'leads', interval: 'month', timezone: 'UTC', points: [{ period: '2026-01-01', count: 1 }] });
    });

    it('defaults to the 30 days ending now, by day: 31 periods, the first one partial', async () => {
      const response = await get(other.key, 'timeseries', { metric: 'messages' }).expect(200);
      const today = new Date().toISOString().slice(0, 10);
      expect(response.body.points).toHaveLength(31);
      expect(response.body.points.at(-1).period).toBe(today);
      expect(response.body.points[0].period).toBe(new Date(Date.parse(`${today}T00:00:00Z`) - 30 * DAY).toISOString().slice(0, 10));
    });
  });

  describe('the figures equal what the list endpoints count', () => {
    const total = async (path: string, query: Query) => {
      const response = await t
        .http()
        .get(`${path}?${new URLSearchParams({ limit: '100', ...query })}`)
        .set('X-API-Key', tenant.key)
        .expect(200);
      return response.body.pagination.total as number;
    };

    it.each([
      ['January in New York', { from: '2026-01-01T05:00:00Z', to: '2026-02-01T04:59:59.999Z' }],
      ['an arbitrary window', { from: '2025-12-10T12:00:01Z', to: '2026-01-20T12:00:00Z' }],
      ['December and January in UTC', { from: '2025-12-01T00:00:00Z', to: '2026-01-31T23:59:59.999Z' }],
    ])('conversations and leads, per bot too: %s', async (_name, range) => {
      for (const botId of [undefined, bot1, bot2]) {
        const query = { ...range, ...(botId ? { botId } : {}) };
        const overview = (await get(tenant.key, 'overview', query).expect(200)).body;
        expect(overview.conversations).toBe(await total('/api/v1/conversations', query));
        expect(overview.leads).toBe(await total('/api/v1/leads', query));
        const series = await Promise.all(
          (['conversations', 'leads'] as const).map(async (metric) =>
            (await get(tenant.key, 'timeseries', { metric, ...query }).expect(200)).body.points.reduce(
              (sum: number, point: { count: number }) => sum + point.count,
              0,
            ),
          ),
        );
        expect(series).toEqual([overview.conversations, overview.leads]);
      }
    });

    it('messages: a range holding all of them counts what the conversations’ message lists hold', async () => {
      const range = { from: '2025-06-01', to: '2026-05-31' };
      const conversations = (await t.http().get('/api/v1/conversations?limit=100').set('X-API-Key', tenant.key).expect(200)).body.conversations as {
        id: string;
        botId: string;
      }[];
      const perConversation = await Promise.all(
        conversations.map(async (c) => ({ botId: c.botId, count: await total(`/api/v1/conversations/${c.id}/messages`, {}) })),
      );
      for (const botId of [undefined, bot1, bot2]) {
        const overview = (await get(tenant.key, 'overview', { ...range, ...(botId ? { botId } : {}) }).expect(200)).body;
        const listed = perConversation.filter((c) => !botId || c.botId === botId).reduce((sum, c) => sum + c.count, 0);
        expect(overview.messages.user + overview.messages.assistant + overview.messages.agent).toBe(listed);
      }
    });
  });

  describe('validation', () => {
    const MUST_BE_DATE = 'must be an ISO 8601 date or date-time';

    it.each([
      ['timeseries', {}, [{ field: 'metric', message: 'must be one of conversations, messages, leads, visitors' }]],
      ['timeseries', { metric: 'sessions' }, [{ field: 'metric', message: 'must be one of conversations, messages, leads, visitors' }]],
      ['timeseries', { metric: 'leads', interval: 'year' }, [{ field: 'interval', message: 'must be one of day, week, month' }]],
      ['timeseries', { metric: 'leads', interval: 'Day' }, [{ field: 'interval', message: 'must be one of day, week, month' }]],
      ['overview', { from: '2026-02-30' }, [{ field: 'from', message: MUST_BE_DATE }]],
      ['overview', { to: 'yesterday' }, [{ field: 'to', message: MUST_BE_DATE }]],
      ['overview', { from: '2026-01-01T00:00' }, [{ field: 'from', message: MUST_BE_DATE }]],
      ['timeseries', { metric: 'leads', to: '0000-01-01' }, [{ field: 'to', message: MUST_BE_DATE }]],
      ['overview', { botId: 'bot-1' }, [{ field: 'botId', message: 'must be a UUID' }]],
      ['overview', { from: '2025-01-01', to: '2026-01-02' }, [{ field: 'from', message: 'must be at most 366 days before to' }]],
      [
        'timeseries',
        { metric: 'messages', from: '2025-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
        [{ field: 'from', message: 'must be at most 366 days before to' }],
      ],
      ['overview', { from: '2026-02-01', to: '2026-01-31' }, [{ field: 'from', message: 'must not be later than to' }]],
      [
        'timeseries',
        { metric: 'leads', from: '2026-01-31T12:00:00Z', to: '2026-01-31T11:59:59.999Z' },
        [{ field: 'from', message: 'must not be later than to' }],
      ],
      ['overview', { from: '2999-01-01' }, [{ field: 'from', message: 'must not be later than to' }]],
      ['overview', { metric: 'leads' }, [{ field: 'metric', message: 'is not an allowed field' }]],
      ['timeseries', { metric: 'leads', limit: '10' }, [{ field: 'limit', message: 'is not an allowed field' }]],
    ] as const)('GET %s with %j is 400', async (path, query, details) => {
      expectError(await get(tenant.key, path, query), 400, 'VALIDATION_ERROR', details);
    });

    it('takes exactly 366 days, in the tenant’s time zone across a DST change', async () => {
      const response = await get(tenant.key, 'overview', { from: '2025-03-01', to: '2026-03-01' }).expect(200);
      expect(response.body.range).toEqual({ from: '2025-03-01T05:00:00.000Z', to: '2026-03-02T04:59:59.999Z' });
      const series = await get(tenant.key, 'timeseries', { metric: 'leads', from: '2025-03-01', to: '2026-03-01' }).expect(200);
      expect(series.body.points).toHaveLength(366);
    });
  });

  it('runs on sessions without JIT (compiling a query with per-row subqueries took 530 ms of a 3 ms overview)', async () => {
    // False with jit=off (PostgreSQL: the pool's session options) or without a JIT provider (PGlite).
    const [session] = await t.prisma.$queryRaw<{ available: boolean }[]>`SELECT pg_jit_available() AS available`;
    expect(session.available).toBe(false);
  });

  describe('access', () => {
    it.each(['overview', 'timeseries'] as const)('GET %s needs the analytics:read scope', async (path) => {
      const query: Query = path === 'timeseries' ? { metric: 'leads' } : {};
      const withoutScope = await createKey(t, tenant.id, { scopes: ['leads:read', 'conversations:read', 'settings:read'] });
      expectError(await get(withoutScope.key, path, query), 403, 'INSUFFICIENT_SCOPE');
      const publicKey = await createKey(t, tenant.id, { type: 'public', scopes: [] });
      expectError(await get(publicKey.key, path, query), 403, 'INSUFFICIENT_SCOPE');
      const analyticsOnly = await createKey(t, tenant.id, { scopes: ['analytics:read'] });
      await get(analyticsOnly.key, path, query).expect(200);
    });
  });
});
