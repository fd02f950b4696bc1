const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/**
 * A real day of the years 0001 to 9999 (PostgreSQL has no year 0). setUTCFullYear, not Date.UTC,
 * which maps the years 0-99 to 1900-1999.
 */
function isCalendarDate(year: string, month: string, day: string): boolean {
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  return Number(year) >= 1 && date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

/** An ISO 8601 date-time with a time zone; impossible dates (2026-02-30, 25:00) are refused, not rolled over. */
export function parseIsoDateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0'] = match;
  if (!isCalendarDate(year, month, day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** An ISO 8601 calendar date (`2026-11-21`) as the start of that day in UTC. */
export function parseIsoDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_ONLY.exec(value);
  if (!match || !isCalendarDate(match[1], match[2], match[3])) return undefined;
  return new Date(`${value}T00:00:00.000Z`);
}
