import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { FoundPassage, KnowledgeChunksRepository } from '../knowledge/knowledge-chunks.repository';
import type { Answer, AnswerInput } from './answer';
import { ChatMessage, streamChatCompletion } from './llm-client';
import { botSynonymLookup } from './bot-synonyms';
import { NO_ANSWER, RefusalGate } from './model-refusal';
import { questionTerms } from './question-terms';
import { WordNetSynonyms } from './wordnet-synonyms';
import { fuseRankings } from './embeddings/rank-fusion';
import { SemanticSearch } from './embeddings/semantic-search';

/**
 * A passage answers a question when it holds at least this share of the question's words
 * (stemmed, stop words left out, each weighted by how rare it is among the bot's passages), and
 * holds its most specific word. Tuned on bench/answer-questions.json (npm run eval:answers).
 */
export const MIN_COVERAGE = 0.35;
/** Passages in a reply, and from one document at most. */
const MAX_PASSAGES = 3;
const MAX_PER_DOCUMENT = 2;
/** Candidates read from the database: enough for MAX_PASSAGES after the per-document cap. */
const CANDIDATES = 12;

/** A passage a reply is built from, found by words or by meaning. */
type Passage = Pick<FoundPassage, 'documentId' | 'title' | 'content'>;
/** A synonym weighs less than the visitor's own word; the bot's own synonyms more than WordNet's. */
const BOT_SYNONYM_WEIGHT = 0.8;
const WORDNET_WEIGHT = 0.5;
/** The model's search words are cut here (a question is at most 24 words: question-terms.ts). */
const MAX_REWRITE_CHARACTERS = 300;
/** fromModel's result when the model says the passages do not answer. */
const REFUSED = Symbol('refused');

/**
 * The bot's reply to a visitor's question, from its knowledge documents: the passages that fit
 * best (an OR of the question's words, scored by how many of them each passage holds), then
 * either the passages themselves (extractive) or, with LLM_* configured, a model's answer written
 * from them, streamed; below MIN_COVERAGE, or when the model says the passages do not answer,
 * the bot's fallback message, counted as unanswered.
 */
@Injectable()
export class AnswerService {
  private readonly logger = new Logger('Answers');
  private readonly wordNet = new WordNetSynonyms();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly chunks: KnowledgeChunksRepository,
    private readonly semantic: SemanticSearch,
  ) {}

  /** `onDelta` receives the reply as it is written; the pieces concatenate to `content`. */
  async answer(input: AnswerInput, onDelta: (text: string) => void = () => undefined): Promise<Answer> {
    const passages = await this.passagesFor(input);
    if (!passages.length) return fallback(input, onDelta);
    const sources = [...new Map(passages.map((passage) => [passage.documentId, { id: passage.documentId, title: passage.title }])).values()];
    const written = this.config.llm ? await this.fromModel(input, passages, onDelta) : undefined;
    if (written === REFUSED) return fallback(input, onDelta);
    if (written) return { content: written, sources, unanswered: false };
    const content = passages.map((passage) => passage.content).join('\n\n');
    for (const piece of sentencesOf(content)) onDelta(piece);
    return { content, sources, unanswered: false };
  }

  /**
   * The passages that answer the question. With LLM_REWRITE_QUESTIONS the model's search words
   * are tried first, and the visitor's own words when they find nothing (or the model fails); the
   * word ranking is then fused with the ranking by meaning when EMBEDDINGS_* is set.
   */
  private async passagesFor(input: AnswerInput): Promise<Passage[]> {
    // The search by meaning (EMBEDDINGS_*) runs beside the word search and never fails; [] when off.
    const byMeaning = this.semantic.nearest(input.tenantId, input.bot.id, input.question);
    const byWords = async (question: string) =>
      (await this.chunks.search(input.tenantId, input.bot, questionTerms(question, this.expansion(input.bot)), CANDIDATES)).filter(answers);
    const rewritten = this.config.llm?.rewriteQuestions ? await this.rewritten(input) : undefined;
    const found = rewritten ? await byWords(rewritten) : [];
    return selectPassages(fuseRankings(found.length ? found : await byWords(input.question), await byMeaning));
  }

  /** The model's search words for the question; undefined when it fails (the visitor's words are searched). */
  private async rewritten(input: AnswerInput): Promise<string | undefined> {
    try {
      const text = await streamChatCompletion(this.config.llm!, rewritePromptFor(input), () => undefined);
      return text.split('\n')[0].trim().slice(0, MAX_REWRITE_CHARACTERS) || undefined;
    } catch (error) {
      this.logger.warn(
        `Model failed rewriting a question for bot ${input.bot.id}: ${(error as Error).message.split('\n')[0]} (the question is searched as asked)`,
      );
      return undefined;
    }
  }

  /** A question word's synonyms: the bot's own, then WordNet's for an English bot. */
  private expansion(bot: AnswerInput['bot']): (word: string) => { text: string; weight: number }[] {
    const own = botSynonymLookup(bot.synonyms);
    const english = bot.language.toLowerCase() === 'en';
    return (word) => [
      ...own(word).map((text) => ({ text, weight: BOT_SYNONYM_WEIGHT })),
      ...(english ? this.wordNet.synonymsOf(word).map((text) => ({ text, weight: WORDNET_WEIGHT })) : []),
    ];
  }

  /**
   * The model's answer from the passages; REFUSED when it says they do not answer (NO_ANSWER,
   * never shown to the visitor); undefined when it failed before the visitor saw anything (the
   * extractive reply is used then). A failure after the first words keeps what was written: the
   * visitor has already read it, and taking it back would be worse than a shorter reply.
   */
  private async fromModel(input: AnswerInput, passages: Passage[], onDelta: (text: string) => void): Promise<string | typeof REFUSED | undefined> {
    const gate = new RefusalGate(onDelta);
    try {
      const text = await streamChatCompletion(this.config.llm!, promptFor(input, passages), (piece) => gate.push(piece));
      if (gate.refused()) return REFUSED;
      gate.flush();
      return text || undefined;
    } catch (error) {
      const partial = gate.released ? ((error as { partial?: string }).partial ?? '') : '';
      if (!partial && gate.refused()) return REFUSED;
      this.logger.warn(
        `Model failed answering for bot ${input.bot.id}: ${(error as Error).message.split('\n')[0]}${partial ? ' (the reply keeps what was written)' : ' (extractive reply used)'}`,
      );
      return partial || undefined;
    }
  }
}

/** The bot's fallback message: nothing in the knowledge base answers (counted as unanswered). */
function fallback(input: AnswerInput, onDelta: (text: string) => void): Answer {
  onDelta(input.bot.fallbackMessage);
  return { content: input.bot.fallbackMessage, sources: [], unanswered: true };
}

/** Whether a passage found by words may answer: it covers enough of the question and holds its most specific word. */
function answers(passage: FoundPassage): boolean {
  return passage.coverage >= MIN_COVERAGE && passage.specific;
}

/** The first passages of a ranking: at most MAX_PASSAGES, MAX_PER_DOCUMENT per document. */
function selectPassages<T extends { documentId: string }>(ranked: T[]): T[] {
  const perDocument = new Map<string, number>();
  const chosen: T[] = [];
  for (const passage of ranked) {
    if (chosen.length === MAX_PASSAGES) break;
    const taken = perDocument.get(passage.documentId) ?? 0;
    if (taken === MAX_PER_DOCUMENT) continue;
    perDocument.set(passage.documentId, taken + 1);
    chosen.push(passage);
  }
  return chosen;
}

function promptFor(input: AnswerInput, passages: Passage[]): ChatMessage[] {
  const context = passages.map((passage, i) => `[${i + 1}] ${passage.title}\n${passage.content}`).join('\n\n');
  return [
    {
      role: 'system',
      content:
        `You are a website's support assistant. Answer the visitor's question using only the passages below, briefly, in the language with ISO 639-1 code "${input.bot.language}". ` +
        `If the passages do not answer it, reply with exactly ${NO_ANSWER} and nothing else. Do not mention the passages.`,
    },
    { role: 'user', content: `Passages:\n\n${context}\n\nQuestion: ${input.question}` },
  ];
}

function rewritePromptFor(input: AnswerInput): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        `Turn a website visitor's question into search words for the website's help articles, in the language with ISO 639-1 code "${input.bot.language}": ` +
        `the question's key words and the words a help article would use for them, on one line, separated by spaces, at most 12 words, nothing else.`,
    },
    { role: 'user', content: input.question },
  ];
}

/** The text in sentence-sized pieces that concatenate to it exactly (the extractive reply's deltas). */
function sentencesOf(text: string): string[] {
  return text.match(/[^.!?\n]*[.!?\n]+\s*|[^.!?\n]+$/g) ?? [text];
}
