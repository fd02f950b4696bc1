import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';

/** A passage claimed for embedding, with the text its vector is made of. */
export interface ClaimedPassage {
  chunkId: string;
  attempts: number;
  /** The document's title and the passage, as the word search also sees them. */
  text: string;
}

/** A passage's vector as stored: length 1, or null when the model gave a zero vector. */
export interface PassageVector {
  chunkId: string;
  vector: number[] | null;
}

/**
 * The passages' embeddings (KnowledgeChunkEmbedding). A row is queued by a trigger when its
 * passage is written (migration 20261125213103_passage_embeddings), claimed by a worker with a
 * lease (`FOR UPDATE SKIP LOCKED`, so instances never take the same row), and filled or put off.
 * Each call is one short statement: PGlite is one connection, and an answer must not wait behind a
 * worker's transaction. (Raw SQL: the typed API cannot say SKIP LOCKED nor cast text to real[].)
 */
@Injectable()
export class PassageEmbeddingsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims up to `limit` due passages, fairly: the oldest due of each tenant first, round the
   * tenants before any gets a second turn, so one tenant's large upload does not hold back the
   * others' new documents. A claim moves `nextAttemptAt` by the lease: a passage whose worker
   * stopped is claimed again when it has passed. `tenantIds`: only theirs (EmbeddingsWorkerOptions).
   */
  async claimDue(limit: number, leaseMs: number, tenantIds?: readonly string[]): Promise<ClaimedPassage[]> {
    const scope = tenantIds ? Prisma.sql`AND e."tenantId"::text IN (${Prisma.join(tenantIds.length ? [...tenantIds] : [''])})` : Prisma.empty;
    return this.prisma.$queryRaw<ClaimedPassage[]>(Prisma.sql`
      WITH due_tenants AS (
        SELECT DISTINCT e."tenantId" FROM "KnowledgeChunkEmbedding" e WHERE e."nextAttemptAt" <= now() ${scope}
      ),
      candidate AS (
        SELECT p."chunkId", p."nextAttemptAt", row_number() OVER (PARTITION BY t."tenantId" ORDER BY p."nextAttemptAt", p."chunkId") AS turn
        FROM due_tenants t CROSS JOIN LATERAL (
          SELECT e."chunkId", e."nextAttemptAt" FROM "KnowledgeChunkEmbedding" e
          WHERE e."tenantId" = t."tenantId" AND e."nextAttemptAt" <= now()
          ORDER BY e."nextAttemptAt", e."chunkId"
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ) p
      ),
      chosen AS (SELECT "chunkId" FROM candidate ORDER BY turn, "nextAttemptAt", "chunkId" LIMIT ${limit})
      UPDATE "KnowledgeChunkEmbedding" e SET "nextAttemptAt" = now() + ${leaseMs} * interval '1 millisecond'
      FROM chosen, "KnowledgeChunk" c JOIN "KnowledgeDocument" d ON d."id" = c."documentId"
      WHERE e."chunkId" = chosen."chunkId" AND c."id" = e."chunkId"
      RETURNING e."chunkId"::text AS "chunkId", e."attempts", d."title" || E'\n\n' || c."content" AS "text"`);
  }

  /** Stores the vectors (model and time with them) and takes the passages off the queue. */
  async recordEmbedded(model: string, vectors: PassageVector[]): Promise<void> {
    if (!vectors.length) return;
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE "KnowledgeChunkEmbedding" e
      SET "model" = ${model}, "vector" = v.vector::real[], "embeddedAt" = now(), "attempts" = 0, "nextAttemptAt" = NULL
      FROM unnest(${vectors.map((row) => row.chunkId)}::uuid[], ${vectors.map((row) => (row.vector ? `{${row.vector.join(',')}}` : null))}::text[]) AS v(id, vector)
      WHERE e."chunkId" = v.id`);
  }

  /** A failed attempt: the passages wait `firstRetryMs`, doubled per failure in a row, at most `maxRetryMs`. */
  async recordFailure(chunkIds: string[], firstRetryMs: number, maxRetryMs: number): Promise<void> {
    if (!chunkIds.length) return;
    await this.prisma.$executeRaw(Prisma.sql`
      UPDATE "KnowledgeChunkEmbedding" e
      SET "attempts" = e."attempts" + 1,
          "nextAttemptAt" = now() + least(${maxRetryMs}::float8, ${firstRetryMs}::float8 * power(2, least(e."attempts", 30))) * interval '1 millisecond'
      WHERE e."chunkId" = ANY(${chunkIds}::uuid[])`);
  }

  /** Gives claimed passages back at once (a stopping instance), with no attempt counted. */
  async release(chunkIds: string[]): Promise<void> {
    if (!chunkIds.length) return;
    await this.prisma.$executeRaw(Prisma.sql`UPDATE "KnowledgeChunkEmbedding" SET "nextAttemptAt" = now() WHERE "chunkId" = ANY(${chunkIds}::uuid[])`);
  }

  /** Queues again what another model embedded: vectors of two models cannot be compared. */
  async requeueOtherModels(model: string): Promise<number> {
    return this.prisma.$executeRaw(Prisma.sql`
      UPDATE "KnowledgeChunkEmbedding" SET "nextAttemptAt" = now(), "attempts" = 0
      WHERE "nextAttemptAt" IS NULL AND "model" IS DISTINCT FROM ${model}`);
  }

  /**
   * What identifies the bot's current set of vectors: their count and the latest embedding time.
   * A new vector raises the time; a deleted passage (its row goes with it) lowers the count.
   */
  async stamp(tenantId: string, botId: string, model: string): Promise<string> {
    const [row] = await this.prisma.$queryRaw<{ stamp: string }[]>(Prisma.sql`
      SELECT count(*)::text || '/' || coalesce(max("embeddedAt")::text, '') AS "stamp" FROM "KnowledgeChunkEmbedding"
      WHERE "tenantId" = ${tenantId}::uuid AND "botId" = ${botId}::uuid AND "model" = ${model} AND "vector" IS NOT NULL`);
    return row.stamp;
  }

  /** The bot's vectors of this model, as comma-separated text (parsed alike whichever database answers). */
  async vectors(tenantId: string, botId: string, model: string): Promise<{ chunkId: string; vector: string }[]> {
    return this.prisma.$queryRaw(Prisma.sql`
      SELECT e."chunkId"::text AS "chunkId", array_to_string(e."vector", ',') AS "vector" FROM "KnowledgeChunkEmbedding" e
      WHERE e."tenantId" = ${tenantId}::uuid AND e."botId" = ${botId}::uuid AND e."model" = ${model} AND e."vector" IS NOT NULL
      ORDER BY e."chunkId"`);
  }

  /** The bot's passages of these ids that still exist, with their documents' titles. */
  async passages(tenantId: string, botId: string, chunkIds: string[]): Promise<{ id: string; documentId: string; title: string; content: string }[]> {
    if (!chunkIds.length) return [];
    return this.prisma.$queryRaw(Prisma.sql`
      SELECT c."id"::text AS "id", c."documentId"::text AS "documentId", d."title", c."content"
      FROM "KnowledgeChunk" c JOIN "KnowledgeDocument" d ON d."id" = c."documentId"
      WHERE c."tenantId" = ${tenantId}::uuid AND c."botId" = ${botId}::uuid AND c."id" = ANY(${chunkIds}::uuid[])`);
  }
}
