import type { QueryTerm } from '../knowledge/knowledge-chunks.repository';

/** A visitor's word: letters and digits, with inner hyphens, dots and apostrophes kept (pro-rating, Node.js). */
const WORD = /[\p{L}\p{N}]+(?:[-.'’][\p{L}\p{N}]+)*/gu;
/** Words kept from a question: a visitor's message is short, and a pasted page should not become a 500-term query. */
const MAX_WORDS = 24;

/**
 * The terms a question is searched with: each distinct word of the visitor is a group of its own
 * (weight 1), and the synonyms `expand` finds for it join that group with their own, lower
 * weight, so a passage that holds the visitor's word always outscores one that holds a synonym.
 */
export function questionTerms(question: string, expand: (word: string) => { text: string; weight: number }[] = () => []): QueryTerm[] {
  const words = [...new Set((question.match(WORD) ?? []).map((word) => word.toLowerCase()))].slice(0, MAX_WORDS);
  return words.flatMap((word, group) => [
    { text: word, group, weight: 1 },
    ...expand(word)
      .filter((synonym) => synonym.text !== word)
      .map((synonym) => ({ text: synonym.text, group, weight: synonym.weight })),
  ]);
}
