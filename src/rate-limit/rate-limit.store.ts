import type { SlidingLogStore } from './sliding-log';

/** One fixed window of a limit: `limit` requests per `ttlMs`, windows aligned to the epoch. */
export interface WindowSpec {
  name: string;
  limit: number;
  ttlMs: number;
}

/** A window after a hit: how many requests it has counted and when it resets. */
export interface WindowUsage {
  name: string;
  limit: number;
  ttlMs: number;
  count: number;
  /** Epoch milliseconds at which the window resets. */
  resetAt: number;
  /** The server time the hit was counted at (epoch milliseconds). */
  now: number;
}

/**
 * Counts one request against several windows of one key, atomically and in one round trip.
 * Windows are checked in order: once one is over its limit the later ones are read but not
 * incremented, so a request refused by the burst window does not use up the hourly quota.
 * Guesses at secrets are counted in sliding logs instead (SlidingLogStore), in the same place.
 */
export interface RateLimitStore extends SlidingLogStore {
  hit(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]>;
  /** The windows' current counts, counting nothing: a check made before an attempt is allowed. */
  peek(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]>;
}

export const RATE_LIMIT_STORE = Symbol('RATE_LIMIT_STORE');

export function isOver(usage: WindowUsage): boolean {
  return usage.count > usage.limit;
}

/** A peeked window whose next hit would be refused: its limit is used up. */
export function isUsedUp(usage: WindowUsage): boolean {
  return usage.count >= usage.limit;
}

export function windowEnd(now: number, ttlMs: number): number {
  return (Math.floor(now / ttlMs) + 1) * ttlMs;
}
