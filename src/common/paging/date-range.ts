import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, IsOptional } from 'class-validator';
import { ValidationError } from '../errors/app-error';
import { parseIsoDate, parseIsoDateTime } from '../validation/iso-date';
import { PageQueryDto } from './pagination';

const DAY_MS = 86_400_000;

/**
 * Parses a `from`/`to` bound: an ISO 8601 date-time, or a date. A date-only `to` covers that
 * whole UTC day, so that `from=2026-01-01&to=2026-01-31` means all of January, both ends
 * inclusive. Anything else stays as sent, for @IsDate to refuse.
 */
function parseBound(value: unknown, endOfDay: boolean): unknown {
  const day = parseIsoDate(value);
  if (day) return endOfDay ? new Date(day.getTime() + DAY_MS - 1) : day;
  return parseIsoDateTime(value) ?? value;
}

/** A date or a date-time with a time zone, as parseBound reads them, for the OpenAPI document. */
export const BOUND_SCHEMA: Pick<ApiPropertyOptions, 'anyOf'> = {
  anyOf: [
    { type: 'string', format: 'date' },
    { type: 'string', format: 'date-time' },
  ],
};

const BOUND_DOCS =
  'An ISO 8601 date (`2026-01-31`) or date-time with a time zone (`2026-01-31T09:30:00Z`) of the years 0001 to 9999, compared with `createdAt`; inclusive.';

/** Paging plus the `from`/`to` window on `createdAt` shared by leads and conversations. */
export class DateRangePageQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ type: String, ...BOUND_SCHEMA, description: `Earliest creation time. ${BOUND_DOCS}`, example: '2026-01-01' })
  @IsOptional()
  @Transform(({ value }) => parseBound(value, false))
  @IsDate({ message: 'must be an ISO 8601 date or date-time' })
  from?: Date;

  @ApiPropertyOptional({
    type: String,
    ...BOUND_SCHEMA,
    description: `Latest creation time. ${BOUND_DOCS} A date covers that whole UTC day. Not earlier than \`from\`.`,
    example: '2026-01-31',
  })
  @IsOptional()
  @Transform(({ value }) => parseBound(value, true))
  @IsDate({ message: 'must be an ISO 8601 date or date-time' })
  to?: Date;
}

/** `from` later than `to` is a 400 (API_DECISIONS); checked once both have parsed. */
export function assertDateRange(query: { from?: Date; to?: Date }): void {
  if (query.from instanceof Date && query.to instanceof Date && query.from > query.to) {
    throw ValidationError.field('from', 'must not be later than to');
  }
}
