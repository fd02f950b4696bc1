import { Logger } from '@nestjs/common';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { RateLimitStore, WindowSpec, WindowUsage } from './rate-limit.store';
import type { Reservation, SlidingLimit } from './sliding-log';

/**
 * Shared counters while the shared store answers; in-process counters while it does not
 * (API_DECISIONS, Faults): each instance then enforces its share of every limit, the limit
 * divided by the number of replicas, so the fleet stays near the plan's numbers. Requests never
 * wait on the outage: the shared store's client fails fast (no offline queue, short timeouts).
 */
export class FailoverRateLimitStore implements RateLimitStore {
  private readonly logger = new Logger('RateLimit');
  private readonly fallback = new MemoryRateLimitStore();
  private degraded = false;

  constructor(
    private readonly primary: RateLimitStore,
    private readonly replicas: number,
  ) {}

  hit(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    return this.either((store, share) => store.hit(key, windows.map(share)));
  }

  peek(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    return this.either((store, share) => store.peek(key, windows.map(share)));
  }

  reserve(group: string, limits: readonly SlidingLimit[]): Promise<Reservation> {
    return this.either((store, share) => store.reserve(group, limits.map(share)));
  }

  /** An entry reserved in Redis before an outage stays there until its window ends (counted as a failure). */
  release(group: string, names: readonly string[], id: string): Promise<void> {
    return this.either((store) => store.release(group, names, id));
  }

  /** During an outage only the in-process logs are forgotten; Redis's expire with their windows. */
  forget(group: string): Promise<void> {
    return this.either((store) => store.forget(group));
  }

  private async either<T>(call: (store: RateLimitStore, share: <L extends { limit: number }>(limit: L) => L) => Promise<T>): Promise<T> {
    try {
      const result = await call(this.primary, (limit) => limit);
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Shared rate-limit store is back; counting in Redis again.');
      }
      return result;
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.logger.warn(
          `Shared rate-limit store unreachable (${error instanceof Error ? error.message : String(error)}); limiting in-process at 1/${this.replicas} of each limit.`,
        );
      }
      return call(this.fallback, (limit) => ({ ...limit, limit: Math.max(1, Math.floor(limit.limit / this.replicas)) }));
    }
  }

  get isDegraded(): boolean {
    return this.degraded;
  }
}
