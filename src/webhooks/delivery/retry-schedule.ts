/**
 * A receiver's Retry-After counts up to an hour (API_DECISIONS part 3): a larger one, such as
 * 99999999999999, would put the next attempt past the dates the database can store.
 */
export const MAX_RETRY_AFTER_SECONDS = 3_600;

/**
 * When the next attempt is due after `attempts` failed ones, or null when the schedule is used up:
 * the schedule's delay with ±10% jitter (so retries of many deliveries spread out), or the
 * receiver's Retry-After (at most an hour) when that is longer.
 */
export function nextAttemptAt(attempts: number, scheduleSeconds: readonly number[], now: Date, retryAfterSeconds?: number, random = Math.random): Date | null {
  const delay = scheduleSeconds[attempts - 1];
  if (delay === undefined) return null;
  const jittered = delay * (0.9 + 0.2 * random());
  return new Date(now.getTime() + Math.max(jittered, Math.min(retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS)) * 1000);
}
