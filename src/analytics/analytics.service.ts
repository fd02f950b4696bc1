import { Injectable } from '@nestjs/common';
import { DatabaseTimeZones } from '../database/database-time-zones';
import { DateRange, previousRange, resolveRange } from './analytics-range';
import { AnalyticsFilter, AnalyticsRepository, FigureCounts, PeriodCount } from './analytics.repository';
import type { AnalyticsInterval, AnalyticsMetric } from './dto/analytics-timeseries.query';

export interface AnalyticsQuery extends AnalyticsFilter {
  from?: string;
  to?: string;
}

/** The overview's figures of one range, rates included. */
export interface OverviewFigures {
  range: DateRange;
  conversations: number;
  messages: { user: number; assistant: number; agent: number };
  leads: number;
  uniqueVisitors: number;
  leadConversionRate: number;
  unansweredRate: number;
  avgMessagesPerConversation: number;
  handoffRate: number;
  medianFirstAgentResponseSeconds: number | null;
}

export interface Timeseries {
  metric: AnalyticsMetric;
  interval: AnalyticsInterval;
  timeZone: string;
  points: PeriodCount[];
}

/** A share, 0 when there is nothing to divide by. */
const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

function toFigures(range: DateRange, counts: FigureCounts): OverviewFigures {
  const messages = counts.userMessages + counts.assistantMessages + counts.agentMessages;
  return {
    range,
    conversations: counts.conversations,
    messages: { user: counts.userMessages, assistant: counts.assistantMessages, agent: counts.agentMessages },
    leads: counts.leads,
    uniqueVisitors: counts.uniqueVisitors,
    leadConversionRate: ratio(counts.convertedConversations, counts.conversations),
    unansweredRate: ratio(counts.unansweredMessages, counts.assistantMessages),
    avgMessagesPerConversation: ratio(messages, counts.conversations),
    handoffRate: ratio(counts.handedOffConversations, counts.conversations),
    medianFirstAgentResponseSeconds: counts.medianFirstAgentResponseSeconds,
  };
}

@Injectable()
export class AnalyticsService {
  constructor(
    private readonly analytics: AnalyticsRepository,
    private readonly timeZones: DatabaseTimeZones,
  ) {}

  async getOverview(tenantId: string, query: AnalyticsQuery, now = new Date()): Promise<{ current: OverviewFigures; previous: OverviewFigures }> {
    const timeZone = await this.timeZoneOf(tenantId);
    const range = resolveRange(query, timeZone, now);
    const previous = previousRange(range, timeZone);
    const counts = await this.analytics.countFigures(tenantId, { botId: query.botId }, range, previous);
    return { current: toFigures(range, counts.current), previous: toFigures(previous, counts.previous) };
  }

  async getTimeseries(
    tenantId: string,
    query: AnalyticsQuery & { metric: AnalyticsMetric; interval?: AnalyticsInterval },
    now = new Date(),
  ): Promise<Timeseries> {
    const timeZone = await this.timeZoneOf(tenantId);
    const range = resolveRange(query, timeZone, now);
    const interval = query.interval ?? 'day';
    const points = await this.analytics.countByPeriod(tenantId, { botId: query.botId }, query.metric, interval, range, timeZone);
    return { metric: query.metric, interval, timeZone, points };
  }

  /**
   * A tenant removed since its key was checked has nothing to count; UTC keeps the answer well
   * formed. So does a zone stored before settings checked it against the database (whose
   * `AT TIME ZONE` would refuse it): the answer's `timezone` says UTC.
   */
  private async timeZoneOf(tenantId: string): Promise<string> {
    const timeZone = await this.analytics.findTimeZone(tenantId);
    return timeZone && (await this.timeZones.has(timeZone)) ? timeZone : 'UTC';
  }
}
