import { ApiProperty } from '@nestjs/swagger';
import { ANALYTICS_INTERVALS, ANALYTICS_METRICS, type AnalyticsInterval, type AnalyticsMetric } from './dto/analytics-timeseries.query';
import type { OverviewFigures, Timeseries } from './analytics.service';

export class AnalyticsRangeResponse {
  @ApiProperty({ format: 'date-time', description: 'The first instant counted.' })
  from: string;

  @ApiProperty({ format: 'date-time', description: 'The last instant counted (inclusive).' })
  to: string;
}

export class MessageCountsResponse {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages of visitors.' })
  user: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Replies of the bot.' })
  assistant: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages of human operators.' })
  agent: number;
}

/** The overview's figures of one range. */
export class AnalyticsFiguresResponse {
  @ApiProperty({ type: AnalyticsRangeResponse })
  range: AnalyticsRangeResponse;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Conversations created in the range.' })
  conversations: number;

  @ApiProperty({ type: MessageCountsResponse, description: 'Messages created in the range, by role.' })
  messages: MessageCountsResponse;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Leads created in the range.' })
  leads: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Distinct visitor ids of the conversations created in the range (conversations without one are not counted).',
  })
  uniqueVisitors: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: 'Share of the conversations created in the range that have a lead; 0 without conversations.',
  })
  leadConversionRate: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: 'Share of the assistant messages of the range that found no answer in the knowledge base; 0 without assistant messages.',
  })
  unansweredRate: number;

  @ApiProperty({ type: 'number', minimum: 0, description: 'Messages created in the range divided by conversations created in it; 0 without conversations.' })
  avgMessagesPerConversation: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description:
      'Share of the conversations created in the range that were handed off to a person (whether released or ended since); 0 without conversations, like the other rates.',
  })
  handoffRate: number;

  @ApiProperty({
    type: 'number',
    nullable: true,
    minimum: 0,
    description:
      'Over the conversations created in the range that were handed off and answered by a person: the median of the seconds from the handoff (the latest, if handed off again) to the first agent message, to the millisecond. An agent who takes a conversation over by writing to it answered in 0 seconds. Null when no handed-off conversation has been answered.',
  })
  medianFirstAgentResponseSeconds: number | null;
}

export class AnalyticsOverviewResponse extends AnalyticsFiguresResponse {
  @ApiProperty({ type: AnalyticsFiguresResponse, description: 'The same figures for the range of the same length that ends just before this one starts.' })
  previous: AnalyticsFiguresResponse;
}

export class TimeseriesPointResponse {
  @ApiProperty({ format: 'date', description: 'The first day of the period in the tenant’s time zone.', example: '2026-01-05' })
  period: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  count: number;
}

export class AnalyticsTimeseriesResponse {
  @ApiProperty({ enum: ANALYTICS_METRICS, enumName: 'AnalyticsMetric' })
  metric: AnalyticsMetric;

  @ApiProperty({ enum: ANALYTICS_INTERVALS, enumName: 'AnalyticsInterval' })
  interval: AnalyticsInterval;

  @ApiProperty({ description: 'The tenant’s IANA time zone, in which the periods are days, weeks and months.', example: 'Europe/Berlin' })
  timezone: string;

  @ApiProperty({
    type: [TimeseriesPointResponse],
    description: 'Every period from the one holding `from` to the one holding `to`, oldest first, empty ones with count 0.',
  })
  points: TimeseriesPointResponse[];
}

export function toAnalyticsFiguresResponse(figures: OverviewFigures): AnalyticsFiguresResponse {
  return {
    range: { from: figures.range.from.toISOString(), to: figures.range.to.toISOString() },
    conversations: figures.conversations,
    messages: { user: figures.messages.user, assistant: figures.messages.assistant, agent: figures.messages.agent },
    leads: figures.leads,
    uniqueVisitors: figures.uniqueVisitors,
    leadConversionRate: figures.leadConversionRate,
    unansweredRate: figures.unansweredRate,
    avgMessagesPerConversation: figures.avgMessagesPerConversation,
    handoffRate: figures.handoffRate,
    medianFirstAgentResponseSeconds: figures.medianFirstAgentResponseSeconds,
  };
}

export function toAnalyticsOverviewResponse(overview: { current: OverviewFigures; previous: OverviewFigures }): AnalyticsOverviewResponse {
  return { ...toAnalyticsFiguresResponse(overview.current), previous: toAnalyticsFiguresResponse(overview.previous) };
}

export function toAnalyticsTimeseriesResponse(series: Timeseries): AnalyticsTimeseriesResponse {
  return {
    metric: series.metric,
    interval: series.interval,
    timezone: series.timeZone,
    points: series.points.map((point) => ({ period: point.period, count: point.count })),
  };
}
