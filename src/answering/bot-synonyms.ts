/**
 * The bot's synonyms as a lookup: each word or phrase of an entry (lower case) to the others of
 * its entry. A word also finds the entries of its singular ("bills" those of "bill").
 */
export function botSynonymLookup(entries: string[]): (word: string) => string[] {
  const groups = new Map<string, Set<string>>();
  for (const entry of entries) {
    const terms = entry
      .split(/[=,]/)
      .map((term) => term.trim().toLowerCase())
      .filter(Boolean);
    for (const term of terms) {
      const others = groups.get(term) ?? new Set<string>();
      for (const other of terms) if (other !== term) others.add(other);
      groups.set(term, others);
    }
  }
  return (word) => [...new Set([...(groups.get(word) ?? []), ...(word.endsWith('s') ? (groups.get(word.slice(0, -1)) ?? []) : [])])];
}
