/**
 * The kinds of background work (src/jobs): the names JOBS_DISABLED takes. Here, with the
 * configuration, rather than with each feature's handler, so the configuration can check them.
 */
export const JOB_KINDS = ['deliveries', 'erasures', 'retention', 'embeddings', 'key-activity'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * The kinds an instance may leave to the others. Not key-activity: its counts are in this
 * instance's memory, and no other instance can store them.
 */
export const SWITCHABLE_JOB_KINDS: readonly JobKind[] = ['deliveries', 'erasures', 'retention', 'embeddings'];

/** The older switches, one per feature, still honoured: `false` turns their kinds off. */
export const WORKER_SWITCHES = {
  WEBHOOK_WORKER: ['deliveries'],
  PRIVACY_WORKER: ['erasures', 'retention'],
  EMBEDDINGS_WORKER: ['embeddings'],
} as const satisfies Record<string, readonly JobKind[]>;
