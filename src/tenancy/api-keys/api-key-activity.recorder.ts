import { BeforeApplicationShutdown, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import type { Claimed, JobHandler, JobTiming } from '../../jobs/job-handler';
import { type JobQueue, JobRunner } from '../../jobs/job-runner';
import { ApiKeyActivityRepository, type KeyDayCount } from './api-key-activity.repository';

/** How often the counts kept in memory are added to the database. */
export const ACTIVITY_FLUSH_INTERVAL_MS = 5_000;

/** The UTC day of a moment, `YYYY-MM-DD`. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The one item of the key-activity kind: the counts held now, to add to the database. */
type Flush = 'flush';

/**
 * Counts the answers to each API key per UTC day without a database write per request: each
 * finished answer adds one to a counter in memory, and every ACTIVITY_FLUSH_INTERVAL_MS the
 * JobRunner has the counters added to ApiKeyActivity in one statement (kind `key-activity`,
 * which no switch turns off: no other instance holds these counts), and once more when the app
 * shuts down. A crash loses at most the counts of the last interval; a failed flush keeps its
 * counts for the next one.
 */
@Injectable()
export class ApiKeyActivityRecorder implements JobHandler<Flush>, OnModuleInit, BeforeApplicationShutdown {
  readonly kind = 'key-activity';
  readonly noun = 'API key activity';
  private readonly logger = new Logger(ApiKeyActivityRecorder.name);
  /** Counts not yet handed to a flush, by key id and day. */
  private pending = new Map<string, KeyDayCount>();
  /** Counts of the flush under way: still not stored, so reads add them too. */
  private flushing = new Map<string, KeyDayCount>();
  private running: Promise<void> | undefined;
  private queue?: JobQueue<Flush>;

  constructor(
    private readonly activity: ApiKeyActivityRepository,
    @Optional() private readonly runner?: JobRunner,
  ) {}

  onModuleInit(): void {
    this.queue = this.runner?.register(this);
  }

  timing(): JobTiming {
    return { pollMs: ACTIVITY_FLUSH_INTERVAL_MS, startDelayMs: ACTIVITY_FLUSH_INTERVAL_MS, concurrency: 1 };
  }

  /** A flush when there are counts to add. */
  async claim(): Promise<Claimed<Flush>> {
    return { items: this.pending.size ? ['flush'] : [] };
  }

  run(): Promise<void> {
    return this.flush();
  }

  /** Runs before the database closes (onApplicationShutdown), so the last counts still reach it. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.queue?.stop();
    await this.flush();
  }

  /** One answer to the key: an error when its status is 400 or above. */
  count(tenantId: string, apiKeyId: string, status: number, at = new Date()): void {
    const day = utcDay(at);
    const id = `${apiKeyId}/${day}`;
    let entry = this.pending.get(id);
    if (!entry) this.pending.set(id, (entry = { tenantId, apiKeyId, day, requests: 0, errors: 0 }));
    entry.requests++;
    if (status >= 400) entry.errors++;
  }

  /** The counts of a key this instance holds and has not stored yet, by day. */
  unstored(apiKeyId: string): Map<string, { requests: number; errors: number }> {
    const byDay = new Map<string, { requests: number; errors: number }>();
    for (const counts of [this.flushing, this.pending]) {
      for (const entry of counts.values()) {
        if (entry.apiKeyId !== apiKeyId) continue;
        const day = byDay.get(entry.day) ?? { requests: 0, errors: 0 };
        byDay.set(entry.day, { requests: day.requests + entry.requests, errors: day.errors + entry.errors });
      }
    }
    return byDay;
  }

  /** Adds the pending counts to the database now (one flush at a time; a second call waits for it and runs again). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (!this.pending.size) return;
    this.flushing = this.pending;
    this.pending = new Map();
    this.running = this.store(this.flushing);
    try {
      await this.running;
    } finally {
      this.running = undefined;
      this.flushing = new Map();
    }
  }

  private async store(batch: Map<string, KeyDayCount>): Promise<void> {
    try {
      await this.activity.addCounts([...batch.values()]);
    } catch (error) {
      // Keep the counts for the next flush: the database may be back by then.
      for (const [id, entry] of batch) {
        const later = this.pending.get(id);
        this.pending.set(id, later ? { ...entry, requests: entry.requests + later.requests, errors: entry.errors + later.errors } : entry);
      }
      this.logger.warn(`Could not store API key activity (kept for the next flush): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
