import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { AnalyticsRangeQueryDto } from './analytics-range.query';

export const ANALYTICS_METRICS = ['conversations', 'messages', 'leads', 'visitors'] as const;
export type AnalyticsMetric = (typeof ANALYTICS_METRICS)[number];

export const ANALYTICS_INTERVALS = ['day', 'week', 'month'] as const;
export type AnalyticsInterval = (typeof ANALYTICS_INTERVALS)[number];

export class AnalyticsTimeseriesQueryDto extends AnalyticsRangeQueryDto {
  @ApiProperty({
    enum: ANALYTICS_METRICS,
    enumName: 'AnalyticsMetric',
    description:
      'What each point counts: conversations, messages or leads created in the period, or `visitors`, the distinct visitor ids of the conversations created in it.',
  })
  @IsIn(ANALYTICS_METRICS, { message: `must be one of ${ANALYTICS_METRICS.join(', ')}` })
  metric!: AnalyticsMetric;

  @ApiPropertyOptional({
    enum: ANALYTICS_INTERVALS,
    enumName: 'AnalyticsInterval',
    default: 'day',
    description: 'The length of a period: a day (the default), an ISO week (from Monday) or a calendar month of the tenant’s time zone.',
  })
  @IsOptional()
  @IsIn(ANALYTICS_INTERVALS, { message: `must be one of ${ANALYTICS_INTERVALS.join(', ')}` })
  interval?: AnalyticsInterval;
}
