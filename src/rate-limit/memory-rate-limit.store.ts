import { RateLimitStore, WindowSpec, WindowUsage, windowEnd } from './rate-limit.store';

const SWEEP_EVERY_HITS = 10_000;

/** In-process counters: the single-instance default, and the fallback while Redis is away. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  private hits = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async hit(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    const now = this.clock();
    if (++this.hits % SWEEP_EVERY_HITS === 0) this.sweep(now);
    let blocked = false;
    return windows.map((window) => {
      const resetAt = windowEnd(now, window.ttlMs);
      const id = `${key}:${window.name}:${resetAt}`;
      const counter = this.counters.get(id) ?? { count: 0, resetAt };
      if (!blocked) counter.count += 1;
      this.counters.set(id, counter);
      if (counter.count > window.limit) blocked = true;
      return { ...window, count: counter.count, resetAt, now };
    });
  }

  private sweep(now: number): void {
    for (const [id, counter] of this.counters) if (counter.resetAt <= now) this.counters.delete(id);
  }
}
