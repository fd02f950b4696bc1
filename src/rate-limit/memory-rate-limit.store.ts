import { RateLimitStore, WindowSpec, WindowUsage, windowEnd } from './rate-limit.store';
import { MemorySlidingLogs, SlidingLogsHeldBy } from './sliding-log';

const SWEEP_EVERY_HITS = 10_000;

/** In-process counters: the single-instance default, and the fallback while Redis is away. */
export class MemoryRateLimitStore extends SlidingLogsHeldBy implements RateLimitStore {
  // Per key, per window name, the current window's counter: found without building a string id
  // per window and request (the windows are aligned, so a new resetAt starts a new window).
  private readonly counters = new Map<string, Map<string, { count: number; resetAt: number }>>();
  private hits = 0;
  // Read through the store's clock, so that a test that moves it moves both kinds of counter.
  protected readonly logs = new MemorySlidingLogs(() => this.clock());

  constructor(private readonly clock: () => number = Date.now) {
    super();
  }

  async hit(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    const now = this.clock();
    if (++this.hits % SWEEP_EVERY_HITS === 0) this.sweep(now);
    let counters = this.counters.get(key);
    if (!counters) this.counters.set(key, (counters = new Map()));
    let blocked = false;
    return windows.map((window) => {
      const resetAt = windowEnd(now, window.ttlMs);
      let counter = counters.get(window.name);
      if (!counter || counter.resetAt !== resetAt) counters.set(window.name, (counter = { count: 0, resetAt }));
      if (!blocked) counter.count += 1;
      if (counter.count > window.limit) blocked = true;
      return { ...window, count: counter.count, resetAt, now };
    });
  }

  async peek(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    const now = this.clock();
    const counters = this.counters.get(key);
    return windows.map((window) => {
      const resetAt = windowEnd(now, window.ttlMs);
      const counter = counters?.get(window.name);
      return { ...window, count: counter?.resetAt === resetAt ? counter.count : 0, resetAt, now };
    });
  }

  private sweep(now: number): void {
    for (const [key, counters] of this.counters) {
      for (const [name, counter] of counters) if (counter.resetAt <= now) counters.delete(name);
      if (!counters.size) this.counters.delete(key);
    }
  }
}
