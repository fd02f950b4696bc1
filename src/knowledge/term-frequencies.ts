/**
 * How many of a bot's passages hold a question's word (its group of terms: the word, its folded
 * match and its synonyms), counted up to DF_CAP by the search's first statement. Counting takes a
 * GIN bitmap scan per word, about 5 ms for a word 10,000 passages hold, and most of a question's
 * cost on a large knowledge base; the counts change only when the passages do. They are kept here
 * per bot and knowledge version (Bot.knowledgeVersion, bumped by a trigger on any change to the
 * passages, read with the bot on every question), so a stale count is never used past the
 * question that read the old version.
 */
export interface GroupFrequency {
  /** Passages holding the group's stemmed terms (its word as written, folded, left out). */
  strict: number;
  /** Passages holding any of its terms; counted only when `strict` is 0. */
  loose: number;
  /** Per term of the group (in its order): whether any passage holds any of the term's words. */
  present: boolean[];
}

/** A bot's counts at one knowledge version; a group's entry is null when it is a stop word (searched for nothing). */
export interface BotFrequencies {
  botId: string;
  version: number;
  /** The bot's passages, counted up to DF_CAP. */
  passages: number;
  groups: Map<string, GroupFrequency | null>;
}

/** Counts kept across all bots: about 150 bytes each, so at most ~8 MB. */
const MAX_GROUPS = 50_000;

export class TermFrequencyCache {
  /** Oldest used first: a bot is moved to the end when its counts are read. */
  private readonly bots = new Map<string, BotFrequencies>();
  private groups = 0;

  /** The bot's counts at this version, if known (an older version's are dropped). */
  get(botId: string, version: number): BotFrequencies | undefined {
    const known = this.bots.get(botId);
    if (!known) return undefined;
    this.bots.delete(botId);
    if (known.version !== version) {
      this.groups -= known.groups.size;
      return undefined;
    }
    this.bots.set(botId, known);
    return known;
  }

  /** A new, empty entry for the bot at this version. */
  start(botId: string, version: number, passages: number): BotFrequencies {
    const stale = this.bots.get(botId);
    if (stale) this.drop(botId, stale);
    const entry: BotFrequencies = { botId, version, passages, groups: new Map() };
    this.bots.set(botId, entry);
    return entry;
  }

  /** Records a group's counts in the bot's entry, dropping the least recently used bots beyond MAX_GROUPS. */
  record(entry: BotFrequencies, group: string, frequency: GroupFrequency | null): void {
    // An entry dropped meanwhile (a newer version, or evicted) is still used by its question, but not counted.
    if (this.bots.get(entry.botId) !== entry) return void entry.groups.set(group, frequency);
    if (!entry.groups.has(group)) this.groups++;
    entry.groups.set(group, frequency);
    for (const [botId, oldest] of this.bots) {
      if (this.groups <= MAX_GROUPS) break;
      if (oldest !== entry) this.drop(botId, oldest);
    }
  }

  private drop(botId: string, entry: BotFrequencies): void {
    this.bots.delete(botId);
    this.groups -= entry.groups.size;
  }
}
