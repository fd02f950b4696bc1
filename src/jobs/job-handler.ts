import type { JobKind } from '../config/job-kinds';

/**
 * How the runner paces one kind of work. Read again at every use, so a test that changes its
 * feature's options after start (their tenant scope, say) is heard at the next claim.
 */
export interface JobTiming {
  /** Idle wait between two claims. */
  pollMs: number;
  /** Wait before the first claim (default none): a periodic check that need not run as the instance starts. */
  startDelayMs?: number;
  /** Items run at once on this instance. */
  concurrency: number;
  /**
   * Items held per slot, running and claimed ahead (1: none ahead). Ahead, an item starts the
   * moment a slot frees, without a claim's round trip first.
   */
  ahead?: number;
  /**
   * Claim even when every slot is held: for a claim that does more than take items (the delivery
   * claim records the attempts that ended and learns which tenants are waiting for a slot).
   */
  claimWhenFull?: boolean;
  /** How long the runner waits after a wake (wake()) before it claims: the time for the change that woke it to commit. */
  wakeDelayMs?: number;
  /** How long a claim holds its items; with renew(), the runner renews the leases every quarter of it. */
  leaseMs?: number;
  /**
   * How long shutdown waits for running items before it gives them back (giveBack()). Without
   * giveBack the runner waits for them: such a handler stops its item at the signal.
   */
  graceMs?: number;
  /** The wait after a first failure, doubled per failure in a row up to maxBackoffMs (default twice pollMs). */
  backoffMs?: number;
  /** The longest wait while failures go on (default 30 s). */
  maxBackoffMs?: number;
}

/** What the runner holds of a kind when it asks for a claim or for the next item to start. */
export interface Held<Item> {
  running: readonly Item[];
  /** Claimed ahead, not started yet. */
  ready: readonly Item[];
  /** Items the claim may add: concurrency × ahead, less those running and ready (can be 0 with claimWhenFull). */
  slots: number;
}

export interface Claimed<Item> {
  items: Item[];
  /** More may be claimable now (the claim was cut short): the runner claims again at once. */
  more?: boolean;
}

/** What run() is told besides its item. */
export interface RunContext {
  /** Aborted when the instance shuts down: stop between two steps, giving the item back. */
  signal: AbortSignal;
  /** Started right after the claim that took it (not claimed ahead and started later). */
  fresh: boolean;
}

/**
 * One kind of background work, registered once with the JobRunner. The handler says what an item
 * is and how it is claimed (its SQL: SKIP LOCKED, leases, fairness across tenants), run and given
 * back; the runner owns when: polling and waking, concurrency, backoff, lease renewal, the
 * per-kind switch and the shutdown.
 */
export interface JobHandler<Item> {
  readonly kind: JobKind;
  /** What the log lines call the items ("webhook deliveries"). */
  readonly noun: string;
  timing(): JobTiming;
  /** Before the first claim (an embedding model's stale vectors queued again); its failure is the handler's to log. */
  start?(): Promise<void>;
  /** Takes due items; a throw is logged once per reason and backs the kind off. */
  claim(held: Held<Item>): Promise<Claimed<Item>>;
  /**
   * The index in `held.ready` of the item to start in a free slot, or -1 to keep the slot (the
   * delivery caps per endpoint and per tenant). Default: the oldest claimed.
   */
  next?(held: Held<Item>): number;
  /** Carries one item out; a throw is logged and backs the kind off (its item is the handler's to put off). */
  run(item: Item, context: RunContext): Promise<void>;
  /** Extends the leases of what this instance holds (renewed every quarter of leaseMs). */
  renew?(held: readonly Item[]): Promise<void>;
  /** Gives items back at once for any instance: those claimed ahead at shutdown, and those still running after graceMs. */
  giveBack?(items: readonly Item[]): Promise<void>;
  /** After shutdown gave back or finished everything (a last flush, a client closed). */
  stop?(): Promise<void>;
}
