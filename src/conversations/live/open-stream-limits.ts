import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';

/** One count open streams are held to, e.g. "per conversation". */
export interface OpenStreamLimit {
  /** What is counted (e.g. `conversation:<id>`); each key has its own count. */
  key: string;
  /** Streams that may be open at once under the key; beyond, 429. */
  max: number;
  /** Who the limit is for, in the 429's message ("per conversation"). */
  label: string;
}

/**
 * Counts the live streams open on this instance under several keys at once (the holder, the
 * conversation, the client's address): a stream is admitted only while every one of its counts is
 * under its limit, and gives them all back when it closes.
 */
export class OpenStreamLimits {
  private readonly open = new Map<string, number>();

  /** Counts a new stream under every limit, or throws 429 (nothing counted) if one is full; the returned function gives them back, once. */
  claim(limits: readonly OpenStreamLimit[]): () => void {
    const full = limits.find((limit) => (this.open.get(limit.key) ?? 0) >= limit.max);
    if (full) {
      throw new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, `At most ${full.max} live streams ${full.label} may be open at once.`, undefined, {
        'Retry-After': '5',
      });
    }
    for (const { key } of limits) this.open.set(key, (this.open.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const { key } of limits) {
        const left = (this.open.get(key) ?? 1) - 1;
        if (left > 0) this.open.set(key, left);
        else this.open.delete(key);
      }
    };
  }
}
