export const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Before this instant every zone is on its constant local mean time, and Intl would switch to BC years. */
const EARLIEST_OFFSET_PROBE = Date.UTC(1000, 0, 1);

/** The zone's offset from UTC at an instant, in milliseconds (positive east of Greenwich). */
function offsetAt(instant: number, timeZone: string): number {
  const probe = Math.max(instant, EARLIEST_OFFSET_PROBE);
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(new Date(probe))
      .map((part) => [part.type, part.value]),
  );
  const wall = new Date(0);
  // setUTCFullYear, not Date.UTC, which maps the years 0-99 to 1900-1999.
  wall.setUTCFullYear(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second));
  const wholeSecond = probe - (((probe % 1000) + 1000) % 1000);
  return wall.getTime() - wholeSecond;
}

/** The wall-clock reading of an instant in a time zone, as milliseconds since 1970-01-01T00:00 of that clock. */
export function wallClockOf(instant: Date, timeZone: string): number {
  return instant.getTime() + offsetAt(instant.getTime(), timeZone);
}

/**
 * The first instant at which the zone's clock reads `wall` (milliseconds of wall-clock time), or,
 * when that reading is skipped (a daylight-saving gap), the instant the clock jumps past it, as
 * PostgreSQL reads such a time. Assumes at most one offset change within a day of it.
 */
export function instantOfWallClock(wall: number, timeZone: string): Date {
  const candidates = [wall - DAY_MS, wall, wall + DAY_MS].map((probe) => wall - offsetAt(probe, timeZone));
  const reaching = candidates.filter((instant) => instant + offsetAt(instant, timeZone) >= wall);
  return new Date(Math.min(...reaching));
}
