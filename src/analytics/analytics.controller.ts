import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { Scope } from '../common/access/scopes';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiV1Endpoint } from '../openapi/openapi.decorators';
import { AnalyticsOverviewResponse, AnalyticsTimeseriesResponse, toAnalyticsOverviewResponse, toAnalyticsTimeseriesResponse } from './analytics.mapper';
import { AnalyticsService } from './analytics.service';
import { AnalyticsRangeQueryDto } from './dto/analytics-range.query';
import { AnalyticsTimeseriesQueryDto } from './dto/analytics-timeseries.query';

const RANGE_RULES = [
  'The range is `from` to `to`, both inclusive: by default the 30 days ending now, at most 366 days; `from` later than `to` is a 400. ' +
    'A date (`2026-01-31`) is that whole day in the tenant’s time zone (`timezone` of GET /api/v1/settings, UTC by default); a date-time is that instant. ' +
    'Lengths are counted on the tenant’s clock.',
  'With `botId`, only that bot’s conversations and leads, and the messages of its conversations; a bot of another tenant gives zeros. ' +
    'Counts equal what the list endpoints count with the same `from`, `to` and `botId`.',
].join('\n\n');

const OVERVIEW_DEFINITIONS = [
  'Figures of the range: `conversations`, conversations created in it; `messages`, messages created in it by role; `leads`, leads created in it; ' +
    '`uniqueVisitors`, distinct non-null `visitorId` of the conversations created in it; ' +
    '`leadConversionRate`, the share of those conversations that have a lead (a `leadId`, or a lead whose `conversationId` is the conversation); ' +
    '`unansweredRate`, assistant messages of the range marked unanswered (the bot had no answer in its knowledge base) over assistant messages of the range; ' +
    '`avgMessagesPerConversation`, messages of the range (all roles) over conversations of the range. Rates lie in 0..1 and are 0 when the divisor is 0; none is rounded.',
  '`previous` holds the same figures, with its own `range`, for the range of the same length on the tenant’s clock that ends the millisecond before `from`.',
].join('\n\n');

@Controller('api/v1/analytics')
@ApiTags('Analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('overview')
  @ApiV1Endpoint({
    operationId: 'getAnalyticsOverview',
    summary: 'Key figures of a range, with the previous range for comparison',
    description: `${OVERVIEW_DEFINITIONS}\n\n${RANGE_RULES}`,
    type: AnalyticsOverviewResponse,
  })
  @RequireScopes(Scope.AnalyticsRead)
  async overview(@Principal() { tenant }: ApiPrincipal, @Query() query: AnalyticsRangeQueryDto): Promise<AnalyticsOverviewResponse> {
    return toAnalyticsOverviewResponse(await this.analytics.getOverview(tenant.id, query));
  }

  @Get('timeseries')
  @ApiV1Endpoint({
    operationId: 'getAnalyticsTimeseries',
    summary: 'Counts per day, week or month',
    description:
      'One point per period (a day, an ISO week from Monday, or a calendar month of the tenant’s time zone) from the period holding `from` to the one holding `to`, ' +
      'periods without anything included with count 0. `period` is the period’s first day; the first and last periods count only what lies within the range. ' +
      'Metrics: `conversations`, `messages` and `leads` created in the period; `visitors`, distinct non-null `visitorId` of the conversations created in it.\n\n' +
      RANGE_RULES,
    type: AnalyticsTimeseriesResponse,
  })
  @RequireScopes(Scope.AnalyticsRead)
  async timeseries(@Principal() { tenant }: ApiPrincipal, @Query() query: AnalyticsTimeseriesQueryDto): Promise<AnalyticsTimeseriesResponse> {
    return toAnalyticsTimeseriesResponse(await this.analytics.getTimeseries(tenant.id, query));
  }
}
