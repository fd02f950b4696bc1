import { ValidationError } from '../common/errors/app-error';
import { parseIsoDate, parseIsoDateTime } from '../common/validation/iso-date';
import { DAY_MS, instantOfWallClock, wallClockOf } from './zoned-time';

export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 366;

/** Both ends inclusive, to the millisecond. */
export interface DateRange {
  from: Date;
  to: Date;
}

const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Keeps a bound within the years 0001-9999 (UTC): a day at either end of what the date filters
 * take can lie beyond them in the tenant's zone, and the answer writes every bound as an ISO 8601
 * date-time with four-digit years. No row can lie outside, so no count changes.
 */
const withinYears = (instant: number) => new Date(Math.min(Math.max(instant, EARLIEST), LATEST));

/** A date is that whole day in the tenant's time zone; a date-time is that instant. */
function readBound(value: string, timeZone: string, edge: 'from' | 'to'): number {
  const day = parseIsoDate(value);
  if (day) return edge === 'from' ? instantOfWallClock(day.getTime(), timeZone).getTime() : instantOfWallClock(day.getTime() + DAY_MS, timeZone).getTime() - 1;
  const instant = parseIsoDateTime(value);
  if (!instant) throw ValidationError.field(edge, 'must be an ISO 8601 date or date-time');
  return instant.getTime();
}

/**
 * The range of an analytics request: `to` defaults to now, `from` to 30 days before `to`. Lengths
 * are measured on the tenant's clock, so that 366 local days are 366 days across a DST change.
 */
export function resolveRange(query: { from?: string; to?: string }, timeZone: string, now: Date): DateRange {
  const to = withinYears(query.to === undefined ? now.getTime() : readBound(query.to, timeZone, 'to'));
  const from = withinYears(
    query.from === undefined
      ? instantOfWallClock(wallClockOf(to, timeZone) + 1 - DEFAULT_RANGE_DAYS * DAY_MS, timeZone).getTime()
      : readBound(query.from, timeZone, 'from'),
  );
  if (from > to) throw ValidationError.field('from', 'must not be later than to');
  if (wallClockOf(to, timeZone) + 1 - wallClockOf(from, timeZone) > MAX_RANGE_DAYS * DAY_MS) {
    throw ValidationError.field('from', `must be at most ${MAX_RANGE_DAYS} days before to`);
  }
  return { from, to };
}

/** The range of the same length on the tenant's clock that ends just before `range` starts. */
export function previousRange(range: DateRange, timeZone: string): DateRange {
  const fromWall = wallClockOf(range.from, timeZone);
  const length = wallClockOf(range.to, timeZone) + 1 - fromWall;
  return { from: withinYears(instantOfWallClock(fromWall - length, timeZone).getTime()), to: withinYears(range.from.getTime() - 1) };
}
