import { Logger } from '@nestjs/common';
import { MemoryRateLimitStore } from './memory-rate-limit.store';
import { RateLimitStore, WindowSpec, WindowUsage } from './rate-limit.store';

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
    return this.either((store, shares) => store.hit(key, shares), windows);
  }

  peek(key: string, windows: readonly WindowSpec[]): Promise<WindowUsage[]> {
    return this.either((store, shares) => store.peek(key, shares), windows);
  }

  private async either(
    call: (store: RateLimitStore, windows: readonly WindowSpec[]) => Promise<WindowUsage[]>,
    windows: readonly WindowSpec[],
  ): Promise<WindowUsage[]> {
    try {
      const usage = await call(this.primary, windows);
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Shared rate-limit store is back; counting in Redis again.');
      }
      return usage;
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.logger.warn(
          `Shared rate-limit store unreachable (${error instanceof Error ? error.message : String(error)}); limiting in-process at 1/${this.replicas} of each limit.`,
        );
      }
      const shares = windows.map((window) => ({ ...window, limit: Math.max(1, Math.floor(window.limit / this.replicas)) }));
      return call(this.fallback, shares);
    }
  }

  get isDegraded(): boolean {
    return this.degraded;
  }
}
