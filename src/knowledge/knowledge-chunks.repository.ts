import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { UUID_V7 } from '../database/uuid-v7';
import { BotFrequencies, TermFrequencyCache } from './term-frequencies';

/** A passage found for a question, with how well it fits. */
export interface FoundPassage {
  documentId: string;
  title: string;
  content: string;
  /** The share (0..1) of the question's words that the passage (or its document's title) contains. */
  coverage: number;
  /** ts_rank, normalised to 0..1: how often they occur, title words weighing more. */
  rank: number;
  /** Whether the passage holds the question's most specific word (the one the fewest of the bot's passages hold). */
  specific: boolean;
}

/**
 * The knowledge base's passages and their search. The text-search configuration of a bot's
 * language is the database's `knowledge_search_config` (migration 20261124201000_knowledge_search),
 * used both to write the vectors and to parse questions, so the two always stem alike.
 */
@Injectable()
export class KnowledgeChunksRepository {
  private readonly frequencies = new TermFrequencyCache();
  /** The counting statement under way per bot and knowledge version (countsFor). */
  private readonly counting = new Map<string, Promise<BotFrequencies>>();

  constructor(private readonly prisma: PrismaService) {}

  /** The document's passages, in one statement, with their vectors in the bot's language. */
  async insert(
    tx: PrismaTransaction,
    document: { tenantId: string; botId: string; documentId: string; title: string; language: string },
    chunks: string[],
  ): Promise<void> {
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
   * The bot's passages for a question's terms, best first. A term is one word of the visitor's
   * (weight 1) or a synonym of one (a lower weight); the terms of one word form a group. Rules:
   * - a passage must hold the question's most specific group, the one the fewest of the bot's
   *   passages hold (counted up to DF_CAP), or one about as rare (SPECIFIC_SHARE): a lone common
   *   word ("card" in "gift cards") never answers;
   * - candidates are the CANDIDATES passages ranked best (ts_rank: 4x cheaper than ts_rank_cd,
   *   which cost 42 ms over 10,000 matching passages; ranking by the visitor's words alone, without
   *   synonyms, was tried: it lost a paraphrase of the eval) and are scored by coverage: per group,
   *   the weight of the best term the passage holds, over the number of groups;
   * - a visitor's word also meets the passages' words as written, accents folded, by its first
   *   letters (a `folded` term, weighing less): the forms the stemmer splits still meet;
   * - ties are broken by document and position, so the same question always gets the same answer.
   * The terms are OR-ed: `plainto_tsquery` (and `websearch_to_tsquery`) AND them, and an ordinary
   * question ("how much does the pro plan cost") then finds nothing.
   * The groups' counts come from the TermFrequencyCache when the bot's knowledge version is the
   * one they were counted at; the others are counted first, in a statement of their own.
   */
  async search(tenantId: string, bot: SearchedBot, terms: QueryTerm[], limit: number): Promise<FoundPassage[]> {
    if (!terms.length) return [];
    const groups = groupsOf(bot.language, terms);
    const counts = await this.countsFor(tenantId, bot, groups);
    const useful = [...groups.values()].filter((group) => counts.groups.get(group.key));
    if (!useful.length) return [];
    const frequencies = useful.map((group) => counts.groups.get(group.key)!);
    // A term none of the bot's passages holds matches nothing and adds nothing to any passage's
    // rank or coverage: left out, it costs nothing (WordNet's synonyms are mostly such terms, and
    // ts_rank's cost grows with the query's terms on every matching passage). Its group stays.
    const searched = useful.flatMap((group, at) => group.terms.filter((_, term) => frequencies[at].present[term]));
    return this.prisma.$queryRaw<FoundPassage[]>(Prisma.sql`
      WITH ${termsOf(bot.language, searched)},
      -- A synonym of nothing but stop words is left out.
      useful AS (SELECT grp, weight, folded, q FROM terms WHERE numnode(q) > 0),
      ${groupQueries},
      -- A group's rarity (and the most specific word) is judged without its folded match, a guess
      -- ("processor" begins "process"), unless that match is all the group has in the passages.
      counted AS (
        SELECT f.grp, g.q, CASE WHEN f.strict > 0 THEN g.strict ELSE g.q END AS judged, CASE WHEN f.strict > 0 THEN f.strict ELSE f.loose END AS df
        FROM unnest(${useful.map((group) => group.index)}::int[], ${frequencies.map((f) => f.strict)}::float8[], ${frequencies.map((f) => f.loose)}::float8[])
          AS f(grp, strict, loose)
        LEFT JOIN groups g ON g.grp = f.grp
      ),
      weighted AS (
        SELECT c.grp, c.q, c.judged, c.df, ln((${counts.passages}::float8 + 1) / (least(greatest(c.df, 1), ${counts.passages}::float8) + 0.5)) AS idf
        FROM counted c
      ),
      -- The most specific word, and any about as rare (a rarity within SPECIFIC_SHARE of it): which
      -- of "must" (9 passages) and "firewall" (11) is the topic, counting cannot tell.
      specific AS (
        SELECT knowledge_tsquery_or(judged ORDER BY grp) AS q FROM weighted
        WHERE df > 0 AND idf >= ${SPECIFIC_SHARE} * (SELECT max(idf) FROM weighted WHERE df > 0)
      ),
      query AS (
        SELECT knowledge_tsquery_or(q ORDER BY grp) AS q, sum(idf) AS total,
               -- Ranked by the stemmed words alone: the folded ones have no positions to count.
               (SELECT knowledge_tsquery_or(q ORDER BY grp, weight DESC, q::text) FROM useful WHERE NOT folded) AS ranking
        FROM weighted HAVING count(*) > 0
      ),
      ranked AS (
        SELECT c."documentId", c."content", c."position", c."searchVector", coalesce(ts_rank(c."searchVector", query.ranking, 32), 0)::float8 AS "rank"
        FROM query, "KnowledgeChunk" c
        WHERE c."tenantId" = ${tenantId}::uuid AND c."botId" = ${bot.id}::uuid AND c."searchVector" @@ query.q
        ORDER BY "rank" DESC, c."documentId", c."position"
        LIMIT ${CANDIDATES}
      )
      SELECT r."documentId", d."title", r."content", r."rank",
             (SELECT coalesce(sum(best * idf), 0) FROM (
               SELECT max(u.weight) AS best, w.idf FROM useful u JOIN weighted w ON w.grp = u.grp WHERE r."searchVector" @@ u.q GROUP BY u.grp, w.idf
             ) held)::float8 / (SELECT total FROM query) AS "coverage",
             r."searchVector" @@ (SELECT q FROM specific) AS "specific"
      FROM ranked r JOIN "KnowledgeDocument" d ON d."id" = r."documentId"
      ORDER BY "coverage" DESC, r."rank" DESC, r."documentId", r."position"
      LIMIT ${limit}`);
  }

  /** The groups' counts at the bot's knowledge version: from the cache, the missing ones counted in one statement. */
  private async countsFor(tenantId: string, bot: SearchedBot, groups: Map<number, TermGroup>): Promise<BotFrequencies> {
    // Questions that arrive together at a bot whose counts are not cached (50 at once in the
    // benchmark, after a deploy or a document change) each counted every word: 50 heavy statements
    // held every pooled connection past its wait (503s) and, failing, cached nothing. One count at
    // a time per bot and version: the others wait for it, then count only what is still missing.
    const key = `${bot.id}:${bot.knowledgeVersion}`;
    for (let pending = this.counting.get(key); pending; pending = this.counting.get(key)) await pending.catch(() => undefined);
    const known = this.frequencies.get(bot.id, bot.knowledgeVersion);
    const missing = [...groups.values()].filter((group) => !known?.groups.has(group.key));
    if (known && !missing.length) return known;
    const counting = this.count(tenantId, bot, known, missing);
    this.counting.set(key, counting);
    try {
      return await counting;
    } finally {
      if (this.counting.get(key) === counting) this.counting.delete(key);
    }
  }

  /** Counts the missing groups in one statement and records them in the bot's entry (a new one without `known`). */
  private async count(tenantId: string, bot: SearchedBot, known: BotFrequencies | undefined, missing: TermGroup[]): Promise<BotFrequencies> {
    const rows = await this.prisma.$queryRaw<
      { passages: number; grp: number | null; strict: number | null; loose: number | null; present: boolean[] | null }[]
    >(Prisma.sql`
      WITH ${termsOf(
        bot.language,
        missing.flatMap((group) => group.terms),
      )},
      -- A stop word of the visitor's is left out with its synonyms (WordNet's for "do" are not stop words).
      useful AS (SELECT grp, weight, folded, q FROM terms WHERE numnode(q) > 0 AND grp IN (SELECT grp FROM terms WHERE weight = 1 AND numnode(q) > 0)),
      ${groupQueries},
      passages AS (
        SELECT count(*)::float8 AS n FROM (SELECT 1 FROM "KnowledgeChunk" c WHERE c."tenantId" = ${tenantId}::uuid AND c."botId" = ${bot.id}::uuid LIMIT ${DF_CAP}) p
      ),
      -- Whether any passage holds any word of a term (a phrase's words each, as ts_rank counts them).
      -- A bot with fewer than PRUNE_FROM passages ranks them all cheaply: its terms are all kept
      -- without a scan each (a new question on a small knowledge base answers sooner).
      present AS (
        SELECT t.grp, array_agg((SELECT n FROM passages) < ${PRUNE_FROM} OR EXISTS (
          SELECT 1 FROM "KnowledgeChunk" c WHERE c."tenantId" = ${tenantId}::uuid AND c."botId" = ${bot.id}::uuid AND c."searchVector" @@ t.words
        ) ORDER BY t.idx) AS present
        FROM (
          SELECT grp, idx, CASE WHEN folded THEN q ELSE (
            SELECT knowledge_tsquery_or(quote_literal(word)::tsquery ORDER BY word) FROM unnest(tsvector_to_array(to_tsvector(knowledge_search_config(${bot.language}), text))) AS word
          ) END AS words
          FROM terms
        ) t
        GROUP BY t.grp
      ),
      counted AS (
        SELECT g.grp, strict.df AS strict, loose.df AS loose, present.present
        FROM groups g
        JOIN present ON present.grp = g.grp
        CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM (
          SELECT 1 FROM "KnowledgeChunk" c WHERE c."tenantId" = ${tenantId}::uuid AND c."botId" = ${bot.id}::uuid AND c."searchVector" @@ g.strict LIMIT ${DF_CAP}
        ) held) strict
        CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM (
          SELECT 1 FROM "KnowledgeChunk" c WHERE strict.df = 0 AND c."tenantId" = ${tenantId}::uuid AND c."botId" = ${bot.id}::uuid AND c."searchVector" @@ g.q LIMIT ${DF_CAP}
        ) held) loose
      )
      SELECT passages.n AS passages, counted.grp, counted.strict, counted.loose, counted.present FROM passages LEFT JOIN counted ON true`);
    const entry = known ?? this.frequencies.start(bot.id, bot.knowledgeVersion, rows[0].passages);
    const counted = new Map(rows.filter((row) => row.grp !== null).map((row) => [row.grp!, { strict: row.strict!, loose: row.loose!, present: row.present! }]));
    for (const group of missing) this.frequencies.record(entry, group.key, counted.get(group.index) ?? null);
    return entry;
  }
}

/** The bot as its passages are searched: its language parses the question, its version dates the cached counts. */
export interface SearchedBot {
  id: string;
  language: string;
  knowledgeVersion: number;
}

/** One word's terms (its group), and the key its counts are cached under: the language and the terms themselves. */
interface TermGroup {
  index: number;
  key: string;
  terms: QueryTerm[];
}

function groupsOf(language: string, terms: QueryTerm[]): Map<number, TermGroup> {
  const groups = new Map<number, TermGroup>();
  for (const term of terms) {
    const group = groups.get(term.group) ?? { index: term.group, key: '', terms: [] };
    group.terms.push(term);
    groups.set(term.group, group);
  }
  for (const group of groups.values()) {
    group.key = JSON.stringify([language, group.terms.map((term) => [term.text, term.weight, term.folded ?? false])]);
  }
  return groups;
}

/** The `terms` CTE: each term with its group, weight and tsquery (a phrase in the bot's language, or a folded match). */
function termsOf(language: string, terms: QueryTerm[]): Prisma.Sql {
  return Prisma.sql`terms AS (
        SELECT t.grp, t.idx, t.text, t.weight, t.folded,
               CASE WHEN t.folded THEN knowledge_folded_query(t.text) ELSE phraseto_tsquery(knowledge_search_config(${language}), t.text) END AS q
        FROM unnest(
          ${terms.map((term) => term.text)}::text[], ${terms.map((term) => term.group)}::int[], ${terms.map((term) => term.weight)}::float8[],
          ${terms.map((term) => term.folded ?? false)}::boolean[]
        ) WITH ORDINALITY AS t(text, grp, weight, folded, idx)
      )`;
}

/** The `groups` CTE: per group, the OR of its terms, and of its stemmed ones (`strict`); ORDER BY in every OR, so the same question always builds the same query. */
const groupQueries = Prisma.sql`groups AS (
        SELECT grp, knowledge_tsquery_or(q ORDER BY weight DESC, q::text) AS q,
               knowledge_tsquery_or(q ORDER BY weight DESC, q::text) FILTER (WHERE NOT folded) AS strict
        FROM useful GROUP BY grp
      )`;

/** A word of the question, or a synonym of one (`group` is the word's index, `weight` 1 for the visitor's own word). */
export interface QueryTerm {
  text: string;
  group: number;
  weight: number;
  /**
   * Matched against the passages' words as written, accents folded (knowledge_folded_query),
   * instead of stemmed; a trailing `*` matches any word that begins with the text.
   */
  folded?: boolean;
}

/** Document frequencies are counted up to this: beyond it a word is common, however common. */
const DF_CAP = 1000;
/** A word whose rarity (idf) is at least this share of the most specific word's counts as specific too. */
const SPECIFIC_SHARE = 0.9;
/** From this many passages on, the terms none of them holds are found (a scan each) and left out of the search. */
const PRUNE_FROM = 200;
/** Passages ranked before their coverage is counted: a question's best ones are among them. */
const CANDIDATES = 48;
