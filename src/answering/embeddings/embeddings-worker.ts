import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type EmbeddingsConfig } from '../../config/env';
import { describeDatabaseError } from '../../database/sql-state';
import type { Claimed, JobHandler, JobTiming, RunContext } from '../../jobs/job-handler';
import { JobRunner } from '../../jobs/job-runner';
import { ClaimedPassage, PassageEmbeddingsRepository } from '../../knowledge/passage-embeddings.repository';
import { EmbeddingsClient, normalized } from './embeddings-client';
import { EMBEDDINGS_WORKER_OPTIONS, type EmbeddingsWorkerOptions } from './embeddings-options';

/**
 * Passages embedded in the background as the JobRunner sees them (kind `embeddings`, on every
 * instance that has EMBEDDINGS_*; JOBS_DISABLED or EMBEDDINGS_WORKER=false turns one off): an item
 * is a small batch, claimed, sent in one request, its vectors stored; the runner claims the next
 * while work is due. A failing endpoint puts the batch off (per passage, with backoff) and the
 * runner backs off before its next claim; answers never wait for it, they search by words what
 * is not embedded yet.
 */
@Injectable()
export class EmbeddingsWorker implements JobHandler<ClaimedPassage[]>, OnModuleInit {
  readonly kind = 'embeddings';
  readonly noun = 'passages to embed';
  private readonly logger = new Logger('Embeddings');
  private client?: EmbeddingsClient;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EMBEDDINGS_WORKER_OPTIONS) private readonly options: EmbeddingsWorkerOptions,
    private readonly embeddings: PassageEmbeddingsRepository,
    private readonly runner: JobRunner,
  ) {}

  /** Nothing to run without an embeddings endpoint (EMBEDDINGS_*). */
  onModuleInit(): void {
    if (this.config.embeddings) this.runner.register(this);
  }

  /** A failed batch waits firstRetryMs before the next claim (its passages wait longer, each with its own backoff). */
  timing(): JobTiming {
    const { pollMs, firstRetryMs } = this.options;
    return { pollMs, concurrency: 1, backoffMs: firstRetryMs, maxBackoffMs: Math.max(firstRetryMs, 30_000) };
  }

  /** Vectors of another model (EMBEDDINGS_MODEL changed) are queued again; until then they are not searched. */
  async start(): Promise<void> {
    const settings = this.settings();
    this.client = new EmbeddingsClient(settings);
    try {
      const count = await this.embeddings.requeueOtherModels(settings.model);
      if (count) this.logger.log(`${count} passages embedded by another model are queued for ${settings.model}`);
    } catch (error) {
      this.logger.warn(`Cannot queue passages of another model again: ${describeDatabaseError(error)}`);
    }
  }

  async claim(): Promise<Claimed<ClaimedPassage[]>> {
    const batch = await this.embeddings.claimDue(this.options.batchSize, this.options.leaseMs, this.options.tenantIds);
    return { items: batch.length ? [batch] : [] };
  }

  /**
   * One batch sent and its vectors stored. Shutdown aborts the request and gives the passages
   * back; a failing endpoint puts them off and throws, for the runner to back off.
   */
  async run(batch: ClaimedPassage[], { signal }: RunContext): Promise<void> {
    const ids = batch.map((passage) => passage.chunkId);
    let vectors: number[][];
    try {
      vectors = await this.client!.embed(
        batch.map((passage) => passage.text),
        this.options.timeoutMs,
        signal,
      );
    } catch (error) {
      if (signal.aborted) return this.embeddings.release(ids).catch(() => undefined);
      await this.embeddings.recordFailure(ids, this.options.firstRetryMs, this.options.maxRetryMs).catch(() => undefined);
      throw new Error(`the embeddings endpoint failed, passages retried with backoff: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
    try {
      await this.embeddings.recordEmbedded(
        this.settings().model,
        batch.map((passage, i) => ({ chunkId: passage.chunkId, vector: normalized(vectors[i]) ? Array.from(normalized(vectors[i])!) : null })),
      );
    } catch (error) {
      // The lease runs out and another claim embeds them again.
      this.logger.warn(`Cannot store embeddings: ${describeDatabaseError(error)}`);
    }
  }

  async stop(): Promise<void> {
    this.client?.close();
  }

  private settings(): EmbeddingsConfig {
    return this.config.embeddings!;
  }
}
