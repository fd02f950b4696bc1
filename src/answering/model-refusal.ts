/**
 * What the model is told to write, and nothing else, when the passages do not answer the question.
 * A fixed token rather than "I do not know" in the bot's language: it can be recognised in any
 * language and never shown to the visitor (the bot's fallback message is sent instead).
 */
export const NO_ANSWER = 'NO_ANSWER';

/**
 * Passes a streamed reply on to the visitor except a refusal: the first pieces are held back while
 * the text so far (leading spaces aside) could still become NO_ANSWER, and all of it once it
 * starts with NO_ANSWER. `refused()` tells, at the end, whether the reply was one.
 */
export class RefusalGate {
  private held = '';
  private open = false;

  constructor(private readonly onDelta: (text: string) => void) {}

  push(piece: string): void {
    if (this.open) return this.onDelta(piece);
    this.held += piece;
    const start = this.held.trimStart();
    if (NO_ANSWER.startsWith(start) || start.startsWith(NO_ANSWER)) return;
    this.open = true;
    this.onDelta(this.held);
  }

  /** Whether the visitor has been sent any of the reply. */
  get released(): boolean {
    return this.open;
  }

  refused(): boolean {
    return !this.open && this.held.trimStart().startsWith(NO_ANSWER);
  }

  /** At the end of a reply that was not a refusal: what is still held (a prefix of NO_ANSWER, e.g. "NO") goes out. */
  flush(): void {
    if (this.open || this.refused() || !this.held) return;
    this.open = true;
    this.onDelta(this.held);
  }
}
