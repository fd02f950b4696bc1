import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type EmbeddingsConfig } from '../../config/env';
import { describeDatabaseError } from '../../database/sql-state';
import { ClaimedPassage, PassageEmbeddingsRepository } from '../../knowledge/passage-embeddings.repository';
import { EmbeddingsClient, normalized } from './embeddings-client';
import { EMBEDDINGS_WORKER_OPTIONS, type EmbeddingsWorkerOptions } from './embeddings-options';

/** The longest wait between polls while the database fails. */
const MAX_DATABASE_BACKOFF_MS = 30_000;

/**
 * Embeds passages in the background, on every instance that has EMBEDDINGS_* (EMBEDDINGS_WORKER=false
 * turns one off): claim a small batch, send it, store the vectors, repeat while work is due; then
 * poll. A failing endpoint puts the batch off (per passage, with backoff) and the worker waits before
 * its next claim; answers never wait for it, they search by words what is not embedded yet.
 */
@Injectable()
export class EmbeddingsWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Embeddings');
  private client?: EmbeddingsClient;
  private running = false;
  private timer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  /** The request in flight, aborted by shutdown (its passages are given back). */
  private inFlight?: AbortController;
  private failedClaims = 0;
  private providerFailing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EMBEDDINGS_WORKER_OPTIONS) private readonly options: EmbeddingsWorkerOptions,
    private readonly embeddings: PassageEmbeddingsRepository,
  ) {}

  onApplicationBootstrap(): void {
    const settings = this.config.embeddings;
    if (!settings?.worker) return;
    this.client = new EmbeddingsClient(settings);
    this.running = true;
    this.loop = this.requeue(settings).then(() => this.schedule(0));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.inFlight?.abort();
    await this.loop;
    this.client?.close();
  }

  /** Vectors of another model (EMBEDDINGS_MODEL changed) are queued again; until then they are not searched. */
  private async requeue(settings: EmbeddingsConfig): Promise<void> {
    try {
      const count = await this.embeddings.requeueOtherModels(settings.model);
      if (count) this.logger.log(`${count} passages embedded by another model are queued for ${settings.model}`);
    } catch (error) {
      this.logger.warn(`Cannot queue passages of another model again: ${describeDatabaseError(error)}`);
    }
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.loop = this.run().then((nextDelayMs) => this.schedule(nextDelayMs));
    }, delayMs);
    this.timer.unref();
  }

  /** Embeds batches while some are due; the wait before the next run. */
  private async run(): Promise<number> {
    while (this.running) {
      let batch: ClaimedPassage[];
      try {
        batch = await this.embeddings.claimDue(this.options.batchSize, this.options.leaseMs, this.options.tenantIds);
        this.failedClaims = 0;
      } catch (error) {
        this.failedClaims++;
        this.logger.warn(`Cannot claim passages to embed: ${describeDatabaseError(error)}`);
        return Math.min(MAX_DATABASE_BACKOFF_MS, this.options.pollMs * 2 ** this.failedClaims);
      }
      if (!batch.length) return this.options.pollMs;
      if (!(await this.embedBatch(batch))) return this.options.firstRetryMs;
    }
    return this.options.pollMs;
  }

  /** One batch sent and recorded; false when the endpoint failed. */
  private async embedBatch(batch: ClaimedPassage[]): Promise<boolean> {
    const settings = this.config.embeddings!;
    const ids = batch.map((passage) => passage.chunkId);
    this.inFlight = new AbortController();
    let vectors: number[][];
    try {
      vectors = await this.client!.embed(
        batch.map((passage) => passage.text),
        this.options.timeoutMs,
        this.inFlight.signal,
      );
    } catch (error) {
      if (!this.running) {
        await this.embeddings.release(ids).catch(() => undefined);
        return false;
      }
      if (!this.providerFailing) this.logger.warn(`Embeddings endpoint failed; passages retried with backoff: ${(error as Error).message.split('\n')[0]}`);
      this.providerFailing = true;
      await this.embeddings.recordFailure(ids, this.options.firstRetryMs, this.options.maxRetryMs).catch(() => undefined);
      return false;
    } finally {
      this.inFlight = undefined;
    }
    if (this.providerFailing) this.logger.log('Embeddings endpoint answers again');
    this.providerFailing = false;
    try {
      await this.embeddings.recordEmbedded(
        settings.model,
        batch.map((passage, i) => ({ chunkId: passage.chunkId, vector: normalized(vectors[i]) ? Array.from(normalized(vectors[i])!) : null })),
      );
    } catch (error) {
      // The lease runs out and another claim embeds them again.
      this.logger.warn(`Cannot store embeddings: ${describeDatabaseError(error)}`);
    }
    return true;
  }
}
