import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';

/**
 * A bounded share of the hashing work: at most `concurrent` jobs run at once and at most
 * `waiting` wait for a slot; past that the caller is told to retry (503) instead of piling up
 * memory and latency.
 */
export class HashingPool {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    private readonly concurrent: number,
    private readonly waiting: number,
    private readonly busyMessage: string,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrent) {
      if (this.queue.length >= this.waiting) throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, this.busyMessage, undefined, { 'Retry-After': '1' });
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes to the next in line (running stays the same), or is freed.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
