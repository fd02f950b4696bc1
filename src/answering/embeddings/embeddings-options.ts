import type { QueueOptions } from '../../jobs/queue-options';

/** How passages are embedded in the background; tests shorten the waits. */
export interface EmbeddingsWorkerOptions extends QueueOptions {
  /** Passages sent in one request: small, so a claim holds little and one slow batch delays few. */
  batchSize: number;
  /** A batch's request, connection to the end of the answer. */
  timeoutMs: number;
  /** The wait after a failed attempt, doubled per failure in a row of the same passage, up to maxRetryMs. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** Above timeoutMs; pollMs is the longest a new document waits to be searchable by meaning. */
  leaseMs: number;
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
