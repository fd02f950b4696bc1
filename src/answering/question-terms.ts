import type { QueryTerm } from '../knowledge/knowledge-chunks.repository';

/** A visitor's word: letters and digits, with inner hyphens, dots and apostrophes kept (pro-rating, Node.js). */
const WORD = /[\p{L}\p{N}]+(?:[-.'’][\p{L}\p{N}]+)*/gu;
/** Words kept from a question: a visitor's message is short, and a pasted page should not become a 500-term query. */
const MAX_WORDS = 24;
/**
 * Longer words are dropped: PostgreSQL refuses a tsquery lexeme over 2,047 bytes (SQL state 54000,
 * "word is too long in tsquery"), lower-casing and folding can lengthen a word, and passages never
 * hold such words (to_tsvector leaves them out), so they could match nothing anyway.
 */
export const MAX_WORD_BYTES = 1_000;

/**
 * A visitor's word matched as written (accents folded) weighs a little less than its stemmed match,
 * and more than any synonym: "delivered" finds "delivery", which the stemmer splits ('deliv', 'deliveri').
 */
export const FOLDED_WEIGHT = 0.7;
/** Words this long are matched by their first letters (all but the last three, at least five); shorter ones whole. */
const PREFIX_FROM = 8;
const MIN_PREFIX = 6;
const ENDING = 2;

/** The word's folded match: "delivered" any word beginning "delive", "logs" the word "logs". */
export function foldedForm(word: string): string {
  const letters = [...word];
  return letters.length >= PREFIX_FROM ? `${letters.slice(0, Math.max(MIN_PREFIX, letters.length - ENDING)).join('')}*` : word;
}

/**
 * The terms a question is searched with: each distinct word of the visitor is a group of its own
 * (weight 1; its folded match FOLDED_WEIGHT), and the synonyms `expand` finds for it join that
 * group with their own, lower weight, so a passage that holds the visitor's word always outscores
 * one that holds a synonym.
 */
export function questionTerms(question: string, expand: (word: string) => { text: string; weight: number }[] = () => []): QueryTerm[] {
  const words = [...new Set((question.match(WORD) ?? []).map((word) => word.toLowerCase()).filter((word) => Buffer.byteLength(word) <= MAX_WORD_BYTES))].slice(
    0,
    MAX_WORDS,
  );
  return words.flatMap((word, group) => [
    { text: word, group, weight: 1 },
    { text: foldedForm(word), group, weight: FOLDED_WEIGHT, folded: true },
    ...expand(word)
      .filter((synonym) => synonym.text !== word)
      .map((synonym) => ({ text: synonym.text, group, weight: synonym.weight })),
  ]);
}
