/** How the embeddings worker runs; tests shorten the waits. */
export interface EmbeddingsWorkerOptions {
  /** Passages sent in one request: small, so a claim holds little and one slow batch delays few. */
  batchSize: number;
  /** A batch's request, connection to the end of the answer. */
  timeoutMs: number;
  /** How long a claim holds its passages; past it, another instance may take them. Above timeoutMs. */
  leaseMs: number;
  /** Idle wait between polls of the queue: the longest a new document waits to be searchable by meaning. */
  pollMs: number;
  /** The wait after a failed attempt, doubled per failure in a row of the same passage, up to maxRetryMs. */
  firstRetryMs: number;
  maxRetryMs: number;
  /**
   * Only these tenants' passages (unset: all). For test suites that share one database with
   * others: there, every suite's passages are queued, and a worker would embed (and wait its turn
   * behind) all of them.
   */
  tenantIds?: readonly string[];
}

export const EMBEDDINGS_WORKER_OPTIONS = Symbol('EMBEDDINGS_WORKER_OPTIONS');

export const DEFAULT_EMBEDDINGS_WORKER_OPTIONS: EmbeddingsWorkerOptions = {
  batchSize: 16,
  timeoutMs: 30_000,
  leaseMs: 60_000,
  pollMs: 1_000,
  firstRetryMs: 10_000,
  maxRetryMs: 3_600_000,
};
