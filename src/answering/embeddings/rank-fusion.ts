/** The constant of reciprocal rank fusion (Cormack et al. 2009): ranks far down count little, none counts nothing. */
export const RRF_K = 60;

/** What identifies a passage in both rankings. */
export interface RankedPassage {
  documentId: string;
  content: string;
}

/**
 * The two rankings as one, by reciprocal rank fusion: a passage scores the sum over the rankings
 * that hold it of 1 / (RRF_K + its rank), rank 1 first. Equal scores keep the word ranking's order,
 * then the meaning ranking's, so the same question always gets the same answer. A passage found
 * both ways is the word ranking's object. With `byMeaning` empty the result is `byWords` as it is,
 * which is what an answer without (or with a failing) embeddings endpoint gets.
 *
 * Passages are told apart by document and text: the word search does not return passage ids, and
 * two equal passages of one document are one answer anyway.
 */
export function fuseRankings<W extends RankedPassage, M extends RankedPassage>(byWords: readonly W[], byMeaning: readonly M[]): (W | M)[] {
  if (!byMeaning.length) return [...byWords];
  const fused = new Map<string, { passage: W | M; score: number; order: number }>();
  for (const [ranking, passages] of ([byWords, byMeaning] as const).entries()) {
    passages.forEach((passage, index) => {
      const key = `${passage.documentId}\u0000${passage.content}`;
      const entry = fused.get(key) ?? { passage, score: 0, order: ranking * 1_000_000 + index };
      entry.score += 1 / (RRF_K + index + 1);
      fused.set(key, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.order - b.order).map((entry) => entry.passage);
}
