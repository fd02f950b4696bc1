import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID, ValidateBy } from 'class-validator';
import { BOUND_SCHEMA } from '../../common/paging/date-range';
import { parseIsoDate, parseIsoDateTime } from '../../common/validation/iso-date';

/**
 * A `from`/`to` as the list endpoints take it. It stays a string here: a date is a day of the
 * tenant's time zone, which only the service knows (analytics-range.ts).
 */
const IsDateBound = () =>
  ValidateBy({
    name: 'isDateBound',
    validator: {
      validate: (value: unknown) => parseIsoDate(value) !== undefined || parseIsoDateTime(value) !== undefined,
      defaultMessage: () => 'must be an ISO 8601 date or date-time',
    },
  });

const BOUND_DOCS =
  'An ISO 8601 date (`2026-01-31`), a whole day in the tenant’s time zone, or a date-time with a time zone (`2026-01-31T09:30:00Z`), of the years 0001 to 9999, compared with `createdAt`; inclusive.';

/** The window and bot of an analytics figure. */
export class AnalyticsRangeQueryDto {
  /** Only this bot's conversations, leads and messages (a bot of another tenant gives zeros). */
  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  botId?: string;

  @ApiPropertyOptional({
    type: String,
    ...BOUND_SCHEMA,
    description: `Start of the range. ${BOUND_DOCS} By default 30 days before \`to\`; at most 366 days before it.`,
    example: '2026-01-01',
  })
  @IsOptional()
  @IsDateBound()
  from?: string;

  @ApiPropertyOptional({
    type: String,
    ...BOUND_SCHEMA,
    description: `End of the range. ${BOUND_DOCS} By default now. Not earlier than \`from\`.`,
    example: '2026-01-31',
  })
  @IsOptional()
  @IsDateBound()
  to?: string;
}
