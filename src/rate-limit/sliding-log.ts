import { randomBytes } from 'node:crypto';

/** At most `limit` entries in any `windowMs` ending now: a sliding window, never reset by a clock boundary. */
export interface SlidingLimit {
  name: string;
  limit: number;
  windowMs: number;
}

/** A granted reservation names its entry (to release it); a refused one, the limit and when it has room. */
export type Reservation = { granted: true; id: string } | { granted: false; name: string; retryInMs: number };

/**
 * Logs of attempts (each one a timestamped entry), grouped so that every log of one subject (an
 * e-mail, an address) can be forgotten at once. An entry is reserved BEFORE the attempt it counts
 * and released when the attempt turns out not to be a failure, so that concurrent attempts can
 * never number more than the limit. The window slides: an entry counts for exactly `windowMs`
 * after it was made. Exact, at the cost of one entry per failure (the log of a limit never holds
 * more than `limit` entries, as a refused reservation adds none).
 */
export interface SlidingLogStore {
  /** Adds one entry to each of `limits`' logs in `group`, all or none: none when any is full. */
  reserve(group: string, limits: readonly SlidingLimit[]): Promise<Reservation>;
  /** Takes a reserved entry back out of the named logs (the attempt was not a failure). */
  release(group: string, names: readonly string[], id: string): Promise<void>;
  /** Forgets every log of the group. */
  forget(group: string): Promise<void>;
}

/** A store whose sliding logs are kept by another object (`logs`): the three calls pass through to it. */
export abstract class SlidingLogsHeldBy implements SlidingLogStore {
  protected abstract readonly logs: SlidingLogStore;

  reserve(group: string, limits: readonly SlidingLimit[]): Promise<Reservation> {
    return this.logs.reserve(group, limits);
  }

  release(group: string, names: readonly string[], id: string): Promise<void> {
    return this.logs.release(group, names, id);
  }

  forget(group: string): Promise<void> {
    return this.logs.forget(group);
  }
}

export const newEntryId = () => randomBytes(9).toString('base64url');

/**
 * The wait until a full log has room: its entries expire oldest first, and `count - limit + 1` of
 * them must go (more than one when the limit was lowered since they were made).
 */
export function retryInMs(entryTimes: readonly number[], limit: number, windowMs: number, now: number): number {
  return entryTimes[entryTimes.length - limit] + windowMs - now;
}

const SWEEP_EVERY_RESERVATIONS = 10_000;

interface Log {
  windowMs: number;
  /** Oldest first. */
  entries: { at: number; id: string }[];
}

/** In-process logs: the single-instance store, and the fallback while Redis is away. */
export class MemorySlidingLogs implements SlidingLogStore {
  private readonly groups = new Map<string, Map<string, Log>>();
  private reservations = 0;

  constructor(private readonly clock: () => number) {}

  async reserve(group: string, limits: readonly SlidingLimit[]): Promise<Reservation> {
    const now = this.clock();
    if (++this.reservations % SWEEP_EVERY_RESERVATIONS === 0) this.sweep(now);
    let logs = this.groups.get(group);
    if (!logs) this.groups.set(group, (logs = new Map()));
    let refusal: Reservation | undefined;
    for (const { name, limit, windowMs } of limits) {
      const entries = this.current(logs, name, windowMs, now);
      if (entries.length < limit) continue;
      const wait = retryInMs(
        entries.map((entry) => entry.at),
        limit,
        windowMs,
        now,
      );
      if (!refusal || (!refusal.granted && wait > refusal.retryInMs)) refusal = { granted: false, name, retryInMs: wait };
    }
    if (refusal) return refusal;
    const id = newEntryId();
    for (const { name } of limits) logs.get(name)!.entries.push({ at: now, id });
    return { granted: true, id };
  }

  async release(group: string, names: readonly string[], id: string): Promise<void> {
    const logs = this.groups.get(group);
    for (const name of names) {
      const log = logs?.get(name);
      if (log) log.entries = log.entries.filter((entry) => entry.id !== id);
    }
  }

  async forget(group: string): Promise<void> {
    this.groups.delete(group);
  }

  /** The log's entries still inside its window (older ones dropped). */
  private current(logs: Map<string, Log>, name: string, windowMs: number, now: number): Log['entries'] {
    let log = logs.get(name);
    if (!log) logs.set(name, (log = { windowMs, entries: [] }));
    log.windowMs = windowMs;
    const firstLive = log.entries.findIndex((entry) => entry.at > now - windowMs);
    if (firstLive !== 0) log.entries.splice(0, firstLive === -1 ? log.entries.length : firstLive);
    return log.entries;
  }

  private sweep(now: number): void {
    for (const [group, logs] of this.groups) {
      for (const [name, log] of logs) if (!log.entries.some((entry) => entry.at > now - log.windowMs)) logs.delete(name);
      if (!logs.size) this.groups.delete(group);
    }
  }
}
