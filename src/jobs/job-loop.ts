import type { Logger } from '@nestjs/common';
import { describeDatabaseError } from '../database/sql-state';
import type { Held, JobHandler, JobTiming } from './job-handler';

/** The longest wait between two claims while a kind fails, unless its timing says otherwise. */
export const MAX_BACKOFF_MS = 30_000;

/**
 * The loop of one kind of work on this instance: claims when due (its interval, a wake, an item
 * that ended, a claim cut short), runs the items it claimed within the kind's concurrency, backs
 * off while claims or items fail (one log line per reason), renews the leases of what it holds,
 * and at shutdown stops claiming, lets running items finish within the grace and gives back the rest.
 */
export class JobLoop<Item> {
  private active = false;
  private polling = false;
  /** Something happened during a claim that the claim may not have seen: claim again after it. */
  private pollAgain = false;
  /** A claim is due shortly because of wake(): one claim for a burst of wakes. */
  private hinted = false;
  /** A claim is due in this turn of the event loop, for items that ended (itemEnded). */
  private endScheduled = false;
  private timer?: NodeJS.Timeout;
  private renewal?: NodeJS.Timeout;
  private poll?: Promise<void>;
  private ready: Item[] = [];
  private readonly running = new Map<Item, Promise<void>>();
  private claimFailures = 0;
  private runFailures = 0;
  private lastFailure?: string;
  private readonly abort = new AbortController();
  private stopped?: Promise<void>;

  constructor(
    private readonly handler: JobHandler<Item>,
    private readonly logger: Logger,
  ) {}

  private get timing(): JobTiming {
    return this.handler.timing();
  }

  async start(): Promise<void> {
    if (this.active || this.stopped) return;
    this.active = true;
    // A failed preparation is logged; the claims go ahead (they back off if the database is away).
    await this.handler.start?.().catch((error: unknown) => this.logger.warn(`Cannot prepare ${this.handler.noun}: ${describeDatabaseError(error)}`));
    if (!this.active) return;
    const { leaseMs } = this.timing;
    if (leaseMs && this.handler.renew) {
      this.renewal = setInterval(() => void this.renewLeases(), leaseMs / 4);
      this.renewal.unref();
    }
    const { startDelayMs } = this.timing;
    if (startDelayMs) this.schedule(startDelayMs);
    else this.claimNow();
  }

  /**
   * Something to do may have been queued in this process: an idle loop claims after wakeDelayMs
   * rather than at its interval, or again after the claim under way (which may have missed it). A
   * busy one claims as its items end anyway, and one backing off keeps backing off.
   */
  wake(): void {
    if (!this.active || this.hinted || this.running.size || this.backingOff()) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.hinted = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.claimNow(), this.timing.wakeDelayMs ?? 0);
    this.timer.unref();
  }

  /** Items claimed ahead that are no longer to run (their rows are gone, say): dropped, and returned. */
  drop(unwanted: (item: Item) => boolean): Item[] {
    const dropped = this.ready.filter(unwanted);
    if (dropped.length) this.ready = this.ready.filter((item) => !unwanted(item));
    return dropped;
  }

  /** What this instance holds: running, claimed ahead, and the room a claim has. */
  held(): Held<Item> {
    const { concurrency, ahead = 1 } = this.timing;
    const running = [...this.running.keys()];
    return { running, ready: this.ready, slots: Math.max(0, concurrency * ahead - running.length - this.ready.length) };
  }

  /** Stops claiming, lets running items finish within graceMs, gives back the rest; once, whoever calls it. */
  stop(): Promise<void> {
    this.stopped ??= this.shutDown();
    return this.stopped;
  }

  private async shutDown(): Promise<void> {
    const wasActive = this.active;
    this.active = false;
    clearTimeout(this.timer);
    if (!wasActive) return;
    this.abort.abort();
    await this.poll;
    // Claimed ahead, never started: back to the queue for any instance.
    await this.giveBack(this.ready.splice(0));
    const { graceMs = 0 } = this.timing;
    const settled = Promise.allSettled(this.running.values()).then(() => true);
    const finished = this.handler.giveBack ? await Promise.race([settled, sleep(graceMs).then(() => false)]) : await settled;
    clearInterval(this.renewal);
    if (!finished) await this.giveBack([...this.running.keys()]);
    try {
      await this.handler.stop?.();
    } catch (error) {
      this.logger.warn(`Cannot stop ${this.handler.noun} cleanly: ${describeDatabaseError(error)}`);
    }
  }

  private async giveBack(items: Item[]): Promise<void> {
    if (!items.length || !this.handler.giveBack) return;
    await this.handler.giveBack(items).catch((error: unknown) => this.logger.warn(`Cannot give back ${this.handler.noun}: ${describeDatabaseError(error)}`));
  }

  private backingOff(): boolean {
    return this.claimFailures > 0 || this.runFailures > 0;
  }

  /** Claims now, or right after the claim under way; then again at once if it was cut short, else after pollMs (or the backoff). */
  private claimNow(): void {
    if (!this.active) return;
    this.hinted = false;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.polling = true;
    this.poll = this.claim().then((more) => {
      this.polling = false;
      if (more || this.pollAgain) {
        this.pollAgain = false;
        return this.claimNow();
      }
      this.schedule(this.claimFailures ? this.backoff(this.claimFailures) : this.timing.pollMs);
    });
  }

  private schedule(delayMs: number): void {
    if (!this.active) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.claimNow(), delayMs);
    this.timer.unref();
  }

  private backoff(failures: number): number {
    const { pollMs, backoffMs = 2 * pollMs, maxBackoffMs = MAX_BACKOFF_MS } = this.timing;
    return Math.min(maxBackoffMs, backoffMs * 2 ** (failures - 1));
  }

  /** One claim and the items it lets start; true when more may be claimable now. */
  private async claim(): Promise<boolean> {
    const held = this.held();
    if (!held.slots && !this.timing.claimWhenFull) return false;
    let more: boolean | undefined;
    try {
      const claimed = await this.handler.claim(held);
      this.ready.push(...claimed.items);
      more = claimed.more;
      this.startReady(new Set(claimed.items));
    } catch (error) {
      this.claimFailures++;
      this.failed(`Cannot claim ${this.handler.noun}`, error);
      return false;
    }
    if (this.claimFailures) {
      this.logger.log(`Claiming ${this.handler.noun} again after ${this.claimFailures} failed attempt(s)`);
      this.claimFailures = 0;
      if (!this.runFailures) this.lastFailure = undefined;
    }
    return more ?? false;
  }

  /** One line per outage (and per change of its reason), not one per claim: the kind backs off meanwhile. */
  private failed(what: string, error: unknown): void {
    const reason = describeDatabaseError(error);
    if (reason === this.lastFailure) return;
    this.lastFailure = reason;
    this.logger.warn(`${what}: ${reason}; retrying with backoff up to ${(this.timing.maxBackoffMs ?? MAX_BACKOFF_MS) / 1000} s`);
  }

  /** Starts claimed items in the free slots, in the order the handler picks (next()). `fresh`: claimed by the claim that called this. */
  private startReady(fresh: ReadonlySet<Item> = new Set()): void {
    while (this.active && this.ready.length && this.running.size < this.timing.concurrency) {
      const index = this.handler.next ? this.handler.next(this.held()) : 0;
      if (index < 0) return;
      const [item] = this.ready.splice(index, 1);
      this.launch(item, fresh.has(item));
    }
  }

  private launch(item: Item, fresh: boolean): void {
    const done = Promise.resolve()
      .then(() => this.handler.run(item, { signal: this.abort.signal, fresh }))
      .then(
        () => this.succeeded(),
        (error: unknown) => {
          this.runFailures++;
          this.failed(`${capitalized(this.handler.noun)} failed`, error);
        },
      )
      .finally(() => {
        this.running.delete(item);
        this.itemEnded();
      });
    this.running.set(item, done);
  }

  private succeeded(): void {
    if (!this.runFailures) return;
    this.logger.log(`Running ${this.handler.noun} again after ${this.runFailures} failed attempt(s)`);
    this.runFailures = 0;
    if (!this.claimFailures) this.lastFailure = undefined;
  }

  /**
   * An item ended: the next claimed ahead starts in its slot, and a claim follows for the room it
   * made once the items that end in this turn of the event loop have all ended (setImmediate), one
   * claim for all of them. After a failure the claim waits for the backoff instead.
   */
  private itemEnded(): void {
    this.startReady();
    if (!this.active) return;
    if (this.runFailures) {
      if (!this.running.size) this.schedule(this.backoff(this.runFailures));
      return;
    }
    if (this.endScheduled) return;
    this.endScheduled = true;
    setImmediate(() => {
      this.endScheduled = false;
      this.claimNow();
    });
  }

  /** A failed renewal is retried at the next one; a lease outlasts three of them. */
  private async renewLeases(): Promise<void> {
    const { running, ready } = this.held();
    try {
      await this.handler.renew!([...running, ...ready]);
    } catch (error) {
      this.logger.warn(`Cannot renew the leases of ${this.handler.noun}: ${describeDatabaseError(error)}`);
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
