import { Transform } from 'class-transformer';
import { IsDate, IsOptional } from 'class-validator';
import { ValidationError } from '../errors/app-error';
import { PageQueryDto } from './pagination';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const DAY_MS = 86_400_000;

/**
 * Parses an ISO 8601 date or date-time. A date-only `to` covers that whole UTC day, so that
 * `from=2026-01-01&to=2026-01-31` means all of January, both ends inclusive.
 */
function parseIsoDate(value: unknown, endOfDay: boolean): unknown {
  if (typeof value !== 'string') return value;
  if (!DATE_ONLY.test(value) && !DATE_TIME.test(value)) return value;
  const date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(date.getTime())) return value;
  if (DATE_ONLY.test(value) && date.toISOString().slice(0, 10) !== value) return value;
  return endOfDay && DATE_ONLY.test(value) ? new Date(date.getTime() + DAY_MS - 1) : date;
}

/** Paging plus the `from`/`to` window on `createdAt` shared by leads and conversations. */
export class DateRangePageQueryDto extends PageQueryDto {
  @IsOptional() @Transform(({ value }) => parseIsoDate(value, false))
  @IsDate({ message: 'must be an ISO 8601 date or date-time' })
  from?: Date;

  @IsOptional() @Transform(({ value }) => parseIsoDate(value, true))
  @IsDate({ message: 'must be an ISO 8601 date or date-time' })
  to?: Date;
}

/** `from` later than `to` is a 400 (API_DECISIONS); checked once both have parsed. */
export function assertDateRange(query: { from?: Date; to?: Date }): void {
  if (query.from instanceof Date && query.to instanceof Date && query.from > query.to) {
    throw ValidationError.field('from', 'must not be later than to');
  }
}
