import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { UUID_V7 } from '../database/uuid-v7';

/** A passage found for a question, with how well it fits. */
export interface FoundPassage {
  documentId: string;
  title: string;
  content: string;
  /** The share (0..1) of the question's words that the passage (or its document's title) contains. */
  coverage: number;
  /** ts_rank, normalised to 0..1: how often they occur, title words weighing more. */
  rank: number;
}

/**
 * The knowledge base's passages and their search. The text-search configuration of a bot's
 * language is the database's `knowledge_search_config` (migration 20261124201000_knowledge_search),
 * used both to write the vectors and to parse questions, so the two always stem alike.
 */
@Injectable()
export class KnowledgeChunksRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The document's passages, in one statement, with their vectors in the bot's language. */
  async insert(tx: PrismaTransaction, document: { tenantId: string; botId: string; documentId: string; title: string; language: string }, chunks: string[]): Promise<void> {
    if (!chunks.length) return;
    await tx.$executeRaw`
      INSERT INTO "KnowledgeChunk" ("id", "tenantId", "botId", "documentId", "position", "content", "searchVector")
      SELECT ${UUID_V7}, ${document.tenantId}::uuid, ${document.botId}::uuid, ${document.documentId}::uuid, (c.n - 1)::int, c.content,
             knowledge_chunk_vector(${document.language}, ${document.title}, c.content)
      FROM unnest(${chunks}::text[]) WITH ORDINALITY AS c(content, n)`;
  }

  /** Removes the document's passages (before its changed text is split again). */
  async deleteForDocument(tenantId: string, documentId: string, tx: PrismaTransaction): Promise<void> {
    await tx.knowledgeChunk.deleteMany({ where: { tenantId, documentId } });
  }

  /**
   * The bot's passages that contain any of the question's words, best first. The words are OR-ed:
   * `plainto_tsquery` (and `websearch_to_tsquery`) AND them, and an ordinary question ("how much
   * does the pro plan cost") then finds nothing. The matches are ranked (ts_rank: 4x cheaper than
   * ts_rank_cd, which cost 42 ms over 10,000 matching passages), the best CANDIDATES are then scored
   * by the share of the question's words each holds (a passage's vector holds its document's title).
   */
  async search(tenantId: string, botId: string, language: string, question: string, limit: number): Promise<FoundPassage[]> {
    return this.prisma.$queryRaw<FoundPassage[]>(Prisma.sql`
      WITH words AS (
        SELECT DISTINCT w AS word FROM unnest(tsvector_to_array(to_tsvector(knowledge_search_config(${language}), ${question}))) AS w
      ),
      query AS (
        SELECT to_tsquery('simple', string_agg(quote_literal(word), ' | ')) AS q, count(*) AS total FROM words HAVING count(*) > 0
      ),
      ranked AS (
        SELECT c."documentId", c."content", c."position", c."searchVector", ts_rank(c."searchVector", query.q, 32)::float8 AS "rank"
        FROM query, "KnowledgeChunk" c
        WHERE c."tenantId" = ${tenantId}::uuid AND c."botId" = ${botId}::uuid AND c."searchVector" @@ query.q
        ORDER BY "rank" DESC
        LIMIT ${CANDIDATES}
      )
      SELECT r."documentId", d."title", r."content", r."rank",
             (SELECT count(*) FROM words WHERE r."searchVector" @@ to_tsquery('simple', quote_literal(words.word)))::float8 / (SELECT total FROM query) AS "coverage"
      FROM ranked r JOIN "KnowledgeDocument" d ON d."id" = r."documentId"
      ORDER BY "coverage" DESC, r."rank" DESC, r."position"
      LIMIT ${limit}`);
  }
}

/** Passages ranked before their coverage is counted: a question's best ones are among them. */
const CANDIDATES = 48;
