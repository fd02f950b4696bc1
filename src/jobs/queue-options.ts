/** What every kind whose items are rows claimed from a queue is tuned by; the defaults are the contract's, tests shorten them. */
export interface QueueOptions {
  /** Idle wait between two claims. */
  pollMs: number;
  /** How long a claim holds its items; past it, another instance may take them. */
  leaseMs: number;
  /**
   * Only these tenants' items (unset: all). For test suites that share one database with others:
   * their background work must not touch the others' rows (nor wait its turn behind them).
   */
  tenantIds?: readonly string[];
}
