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

/** Paging plus the `from`/`to` window on `createdAt` shared by leads and conversations. */
export class DateRangePageQueryDto extends PageQueryDto {
  @IsOptional() @Transform(({ value }) => parseBound(value, false))
  @IsDate({ message: 'must be an ISO 8601 date or date-time' })
  from?: Date;

  @IsOptional() @Transform(({ value }) => parseBound(value, true))
  @IsDate({ message: 'must be an ISO 8601 date or date-time' })
  to?: Date;
}

/** `from` later than `to` is a 400 (API_DECISIONS); checked once both have parsed. */
export function assertDateRange(query: { from?: Date; to?: Date }): void {
  if (query.from instanceof Date && query.to instanceof Date && query.from > query.to) {
    throw ValidationError.field('from', 'must not be later than to');
  }
}
