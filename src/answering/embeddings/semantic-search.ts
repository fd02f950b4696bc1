import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { PassageEmbeddingsRepository } from '../../knowledge/passage-embeddings.repository';
import { EmbeddingsClient, normalized } from './embeddings-client';

/** A passage found by meaning. */
export interface MeaningPassage {
  documentId: string;
  title: string;
  content: string;
  similarity: number;
}

/** Passages ranked by meaning, as many as the word search gives the fusion. */
const CANDIDATES = 12;
/**
 * Vectors kept in memory across bots (numbers, 4 bytes each: 64 MB): 11,000 passages of
 * 1,536 dimensions. The bots asked least recently are dropped first; a bot larger than this on
 * its own is read for each question and not kept.
 */
const CACHE_BUDGET = 16 * 1024 * 1024;

/** One bot's vectors, unit length, one after the other in `matrix`. */
interface BotVectors {
  stamp: string;
  chunkIds: string[];
  dimensions: number;
  matrix: Float32Array;
}

/**
 * The semantic step of an answer (EMBEDDINGS_*): the question's embedding against the bot's
 * embedded passages, by cosine. It never fails an answer: unconfigured, timed out or failing, it
 * finds nothing, and the answer is the word search's alone.
 *
 * Where the cosine is computed: in this process, over the bot's vectors kept in a bounded cache.
 * In SQL over `real[]` (no pgvector on the embedded database) it is an unnest of every vector,
 * N x dimensions rows per question (1.5 million for 1,000 passages of 1,536), in the one
 * connection PGlite has; here it is a loop over a Float32Array: 2.2 ms (p10; median 3.5-5 ms on the loaded
 * 2-core machine) for the same, measured with nearestOf on random vectors. The cache is
 * checked against the database on every question (one indexed count: the `stamp`), so a passage
 * embedded or deleted on any instance is seen by the next question, without a message between
 * instances; the passages' text is always read from the database, so a deleted one is never quoted.
 */
@Injectable()
export class SemanticSearch implements OnModuleDestroy {
  private readonly logger = new Logger('Answers');
  private readonly client?: EmbeddingsClient;
  /** Bot key to its vectors, least recently asked first (a Map keeps insertion order). */
  private readonly cache = new Map<string, BotVectors>();
  private cached = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly embeddings: PassageEmbeddingsRepository,
  ) {
    if (config.embeddings) this.client = new EmbeddingsClient(config.embeddings);
  }

  onModuleDestroy(): void {
    this.client?.close();
  }

  /** The bot's passages nearest the question that reach EMBEDDINGS_MIN_SIMILARITY, nearest first; [] on any failure. */
  async nearest(tenantId: string, botId: string, question: string): Promise<MeaningPassage[]> {
    const settings = this.config.embeddings;
    if (!settings || !this.client) return [];
    try {
      const [[embedding], vectors] = await Promise.all([
        this.client.embed([question], settings.questionTimeoutMs),
        this.botVectors(tenantId, botId, settings.model),
      ]);
      const query = normalized(embedding);
      if (!query || !vectors.chunkIds.length || query.length !== vectors.dimensions) return [];
      const hits = nearestOf(query, vectors, settings.minSimilarity);
      const rows = new Map(
        (
          await this.embeddings.passages(
            tenantId,
            botId,
            hits.map((hit) => hit.chunkId),
          )
        ).map((row) => [row.id, row]),
      );
      return hits.flatMap((hit) => {
        const row = rows.get(hit.chunkId);
        return row ? [{ documentId: row.documentId, title: row.title, content: row.content, similarity: hit.similarity }] : [];
      });
    } catch (error) {
      this.logger.warn(`Semantic search skipped for bot ${botId} (words only): ${(error as Error).message.split('\n')[0]}`);
      return [];
    }
  }

  private async botVectors(tenantId: string, botId: string, model: string): Promise<BotVectors> {
    const key = `${tenantId}/${botId}`;
    const stamp = await this.embeddings.stamp(tenantId, botId, model);
    const known = this.cache.get(key);
    if (known) {
      this.cache.delete(key);
      this.cached -= known.matrix.length;
      if (known.stamp === stamp) return this.keep(key, known);
    }
    const rows = await this.embeddings.vectors(tenantId, botId, model);
    const dimensions = rows.length ? rows[0].vector.split(',').length : 0;
    const matrix = new Float32Array(rows.length * dimensions);
    const chunkIds: string[] = [];
    for (const row of rows) {
      const values = row.vector.split(',');
      if (values.length !== dimensions) continue;
      for (let i = 0; i < dimensions; i++) matrix[chunkIds.length * dimensions + i] = Number(values[i]);
      chunkIds.push(row.chunkId);
    }
    return this.keep(key, { stamp, chunkIds, dimensions, matrix: matrix.subarray(0, chunkIds.length * dimensions) });
  }

  private keep(key: string, vectors: BotVectors): BotVectors {
    if (vectors.matrix.length > CACHE_BUDGET) return vectors;
    for (const [oldest, old] of this.cache) {
      if (this.cached + vectors.matrix.length <= CACHE_BUDGET) break;
      this.cache.delete(oldest);
      this.cached -= old.matrix.length;
    }
    this.cache.set(key, vectors);
    this.cached += vectors.matrix.length;
    return vectors;
  }
}

/** The CANDIDATES passages of highest cosine at or above `minimum`, highest first, ties by id. */
export function nearestOf(
  query: Float32Array,
  vectors: Pick<BotVectors, 'chunkIds' | 'dimensions' | 'matrix'>,
  minimum: number,
): { chunkId: string; similarity: number }[] {
  const hits: { chunkId: string; similarity: number }[] = [];
  const { dimensions, matrix } = vectors;
  for (let row = 0; row < vectors.chunkIds.length; row++) {
    let dot = 0;
    const offset = row * dimensions;
    for (let i = 0; i < dimensions; i++) dot += query[i] * matrix[offset + i];
    if (dot >= minimum) hits.push({ chunkId: vectors.chunkIds[row], similarity: dot });
  }
  return hits.sort((a, b) => b.similarity - a.similarity || (a.chunkId < b.chunkId ? -1 : 1)).slice(0, CANDIDATES);
}
