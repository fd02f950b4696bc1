/** About one answer's worth of text: long enough to carry a fact with its context, short enough to quote. */
export const CHUNK_TARGET_CHARS = 800;

const SENTENCE_END = /(?<=[.!?…。！？])\s+/u;

/**
 * Splits a document into the passages answers are made of. Paragraphs (blank-line separated) are
 * kept whole and merged with the next while the chunk stays within CHUNK_TARGET_CHARS, so a
 * short heading stays with its text; a longer paragraph is cut between sentences, and a sentence
 * longer than that between words. No text is dropped and none repeated.
 */
export function splitIntoChunks(content: string, target = CHUNK_TARGET_CHARS): string[] {
  const paragraphs = content
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .flatMap((paragraph) => (paragraph.length <= target ? [paragraph] : splitLong(paragraph, target)));
  const chunks: string[] = [];
  for (const paragraph of paragraphs) {
    const last = chunks.at(-1);
    if (last !== undefined && last.length + 2 + paragraph.length <= target) chunks[chunks.length - 1] = `${last}\n\n${paragraph}`;
    else chunks.push(paragraph);
  }
  return chunks;
}

/** A paragraph over the target, cut between sentences (between words for a very long sentence). */
function splitLong(paragraph: string, target: number): string[] {
  const pieces = paragraph.split(SENTENCE_END).flatMap((sentence) => (sentence.length <= target ? [sentence] : splitWords(sentence, target)));
  return packed(pieces, ' ', target);
}

function splitWords(sentence: string, target: number): string[] {
  const words = sentence.split(/\s+/).flatMap((word) => (word.length <= target ? [word] : (word.match(new RegExp(`.{1,${target}}`, 'gsu')) ?? [])));
  return packed(words, ' ', target);
}

/** Joins consecutive pieces with `separator` while the result stays within `target`. */
function packed(pieces: string[], separator: string, target: number): string[] {
  const out: string[] = [];
  for (const piece of pieces) {
    const last = out.at(-1);
    if (last !== undefined && last.length + separator.length + piece.length <= target) out[out.length - 1] = `${last}${separator}${piece}`;
    else out.push(piece);
  }
  return out;
}
