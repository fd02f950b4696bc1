import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';
import type { DateRange } from './analytics-range';
import type { AnalyticsInterval, AnalyticsMetric } from './dto/analytics-timeseries.query';

export interface AnalyticsFilter {
  botId?: string;
}

/** What the overview counts in one range. */
export interface FigureCounts {
  conversations: number;
  uniqueVisitors: number;
  /** Conversations of the range that have a lead. */
  convertedConversations: number;
  leads: number;
  userMessages: number;
  assistantMessages: number;
  agentMessages: number;
  /** Assistant messages flagged `unanswered`. */
  unansweredMessages: number;
  /** Conversations of the range handed off to a person (released or ended since included). */
  handedOffConversations: number;
  /** The median, over those a person has answered, of the seconds from the handoff to the first agent message; null when none. */
  medianFirstAgentResponseSeconds: number | null;
}

export interface PeriodCount {
  /** The period's first day on the tenant's clock, `YYYY-MM-DD`. */
  period: string;
  count: number;
}

type CountRow<K extends string> = Record<`${K}` | `previous_${K}`, number>;
type MedianRow<K extends string> = Record<`${K}` | `previous_${K}`, number | null>;

/** The table and counted expression of each metric; `x` is the row. */
const METRICS: Record<AnalyticsMetric, { table: Prisma.Sql; count: Prisma.Sql }> = {
  conversations: { table: Prisma.sql`"Conversation" x`, count: Prisma.sql`count(*)` },
  visitors: { table: Prisma.sql`"Conversation" x`, count: Prisma.sql`count(DISTINCT x."visitorId")` },
  leads: { table: Prisma.sql`"Lead" x`, count: Prisma.sql`count(*)` },
  messages: { table: Prisma.sql`"Message" x`, count: Prisma.sql`count(*)` },
};

const STEPS: Record<AnalyticsInterval, string> = { day: '1 day', week: '1 week', month: '1 month' };

/**
 * The analytics figures, in raw SQL (STYLE.md: what the typed API cannot say: FILTER, date_trunc in
 * a time zone, generate_series). Every query reads one table's (tenantId, createdAt) index range
 * and aggregates in the database, so the cost is one scan of the range; the overview counts its
 * range and the previous one in the same scan. A tenant with 1M messages over a year (PostgreSQL
 * 15): overview 30 days 65 ms, 366 days 250 ms; a daily timeseries of messages over 366 days 250 ms.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The tenant's IANA time zone, read on every request: settings may have changed it a moment ago. */
  async findTimeZone(tenantId: string): Promise<string | null> {
    const tenant = await this.prisma.tenant.findUnique({ where: { id: tenantId }, select: { timezone: true } });
    return tenant?.timezone ?? null;
  }

  /** The figures of `range` and of `previous`, which ends where `range` starts. */
  async countFigures(
    tenantId: string,
    filter: AnalyticsFilter,
    range: DateRange,
    previous: DateRange,
  ): Promise<{ current: FigureCounts; previous: FigureCounts }> {
    const within = Prisma.sql`x."tenantId" = ${tenantId}::uuid AND x."createdAt" BETWEEN ${previous.from}::timestamptz AND ${range.to}::timestamptz`;
    const current = Prisma.sql`x."createdAt" >= ${range.from}::timestamptz`;
    const [conversations, messages, leads] = await Promise.all([
      this.prisma.$queryRaw<(CountRow<'conversations' | 'uniqueVisitors' | 'converted' | 'handedOff'> & MedianRow<'firstAgentSeconds'>)[]>(Prisma.sql`
        SELECT
          count(*) FILTER (WHERE r."current")::int AS "conversations",
          count(DISTINCT r."visitorId") FILTER (WHERE r."current")::int AS "uniqueVisitors",
          count(*) FILTER (WHERE r."current" AND r."converted")::int AS "converted",
          count(*) FILTER (WHERE r."current" AND r."handedOffAt" IS NOT NULL)::int AS "handedOff",
          ${median(Prisma.sql`r."current"`)} AS "firstAgentSeconds",
          count(*) FILTER (WHERE NOT r."current")::int AS "previous_conversations",
          count(DISTINCT r."visitorId") FILTER (WHERE NOT r."current")::int AS "previous_uniqueVisitors",
          count(*) FILTER (WHERE NOT r."current" AND r."converted")::int AS "previous_converted",
          count(*) FILTER (WHERE NOT r."current" AND r."handedOffAt" IS NOT NULL)::int AS "previous_handedOff",
          ${median(Prisma.sql`NOT r."current"`)} AS "previous_firstAgentSeconds"
        FROM (
          SELECT ${current} AS "current", x."visitorId", x."handedOffAt",
            (x."leadId" IS NOT NULL OR EXISTS (SELECT 1 FROM "Lead" l WHERE l."conversationId" = x."id" AND l."tenantId" = x."tenantId")) AS "converted",
            ${FIRST_AGENT_SECONDS} AS "firstAgentSeconds"
          FROM "Conversation" x
          WHERE ${within} ${botFilter('conversations', filter)}
        ) r`),
      this.prisma.$queryRaw<CountRow<'user' | 'assistant' | 'agent' | 'unanswered'>[]>(Prisma.sql`
        SELECT
          count(*) FILTER (WHERE r."current" AND r."role" = 'user')::int AS "user",
          count(*) FILTER (WHERE r."current" AND r."role" = 'assistant')::int AS "assistant",
          count(*) FILTER (WHERE r."current" AND r."role" = 'agent')::int AS "agent",
          count(*) FILTER (WHERE r."current" AND r."role" = 'assistant' AND r."unanswered")::int AS "unanswered",
          count(*) FILTER (WHERE NOT r."current" AND r."role" = 'user')::int AS "previous_user",
          count(*) FILTER (WHERE NOT r."current" AND r."role" = 'assistant')::int AS "previous_assistant",
          count(*) FILTER (WHERE NOT r."current" AND r."role" = 'agent')::int AS "previous_agent",
          count(*) FILTER (WHERE NOT r."current" AND r."role" = 'assistant' AND r."unanswered")::int AS "previous_unanswered"
        FROM (
          SELECT ${current} AS "current", x."role", x."unanswered"
          FROM "Message" x
          WHERE ${within} ${botFilter('messages', filter)}
        ) r`),
      this.prisma.$queryRaw<CountRow<'leads'>[]>(Prisma.sql`
        SELECT count(*) FILTER (WHERE ${current})::int AS "leads", count(*) FILTER (WHERE NOT ${current})::int AS "previous_leads"
        FROM "Lead" x
        WHERE ${within} ${botFilter('leads', filter)}`),
    ]);
    const [c, m, l] = [conversations[0], messages[0], leads[0]];
    const figures = (prefix: '' | 'previous_'): FigureCounts => ({
      conversations: c[`${prefix}conversations`],
      uniqueVisitors: c[`${prefix}uniqueVisitors`],
      convertedConversations: c[`${prefix}converted`],
      leads: l[`${prefix}leads`],
      userMessages: m[`${prefix}user`],
      assistantMessages: m[`${prefix}assistant`],
      agentMessages: m[`${prefix}agent`],
      unansweredMessages: m[`${prefix}unanswered`],
      handedOffConversations: c[`${prefix}handedOff`],
      medianFirstAgentResponseSeconds: c[`${prefix}firstAgentSeconds`],
    });
    return { current: figures(''), previous: figures('previous_') };
  }

  /**
   * One count per period of `interval` on the tenant's clock, from the period holding `range.from`
   * to the one holding `range.to`, empty periods included (generate_series); the first and last
   * periods count only what lies within the range.
   */
  countByPeriod(
    tenantId: string,
    filter: AnalyticsFilter,
    metric: AnalyticsMetric,
    interval: AnalyticsInterval,
    range: DateRange,
    timeZone: string,
  ): Promise<PeriodCount[]> {
    const { table, count } = METRICS[metric];
    const truncated = (instant: Prisma.Sql) => Prisma.sql`date_trunc(${interval}::text, ${instant} AT TIME ZONE ${timeZone}::text)`;
    return this.prisma.$queryRaw<PeriodCount[]>(Prisma.sql`
      WITH counted AS (
        SELECT ${truncated(Prisma.sql`x."createdAt"`)} AS "period", ${count}::int AS "count"
        FROM ${table}
        WHERE x."tenantId" = ${tenantId}::uuid AND x."createdAt" BETWEEN ${range.from}::timestamptz AND ${range.to}::timestamptz ${botFilter(metric, filter)}
        GROUP BY 1
      )
      SELECT to_char(p."period", 'YYYY-MM-DD') AS "period", coalesce(counted."count", 0)::int AS "count"
      FROM generate_series(${truncated(Prisma.sql`${range.from}::timestamptz`)}, ${truncated(Prisma.sql`${range.to}::timestamptz`)}, ${STEPS[interval]}::interval) AS p("period")
      LEFT JOIN counted ON counted."period" = p."period"
      ORDER BY p."period"`);
  }
}

/**
 * Seconds from the conversation `x`'s (latest) handoff to the first agent message at or after it,
 * in milliseconds' precision; null when not handed off or not answered yet. An agent who takes a
 * conversation over by writing to it (which hands it off) answered in 0 seconds. One indexed read
 * of the conversation's messages (conversationId, createdAt), for handed-off conversations only.
 */
const FIRST_AGENT_SECONDS = Prisma.sql`CASE WHEN x."handedOffAt" IS NOT NULL THEN (
  SELECT extract(epoch FROM min(m."createdAt") - x."handedOffAt")
  FROM "Message" m
  WHERE m."conversationId" = x."id" AND m."tenantId" = x."tenantId" AND m."role" = 'agent' AND m."createdAt" >= x."handedOffAt"
) END`;

/** The median of the answered handoffs' first-response seconds among the rows where `when` holds, rounded to the millisecond; null when none. */
function median(when: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`round((percentile_cont(0.5) WITHIN GROUP (ORDER BY r."firstAgentSeconds") FILTER (WHERE ${when} AND r."firstAgentSeconds" IS NOT NULL))::numeric, 3)::float8`;
}

/** Only the rows `x` of the filter's bot. Messages carry no bot: theirs is their conversation's. */
function botFilter(metric: AnalyticsMetric, filter: AnalyticsFilter): Prisma.Sql {
  if (!filter.botId) return Prisma.empty;
  if (metric !== 'messages') return Prisma.sql`AND x."botId" = ${filter.botId}::uuid`;
  return Prisma.sql`AND EXISTS (SELECT 1 FROM "Conversation" b WHERE b."id" = x."conversationId" AND b."tenantId" = x."tenantId" AND b."botId" = ${filter.botId}::uuid)`;
}
