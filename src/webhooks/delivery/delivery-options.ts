import type { QueueOptions } from '../../jobs/queue-options';

/** How webhooks are delivered; the defaults are the contract's, tests shorten them. */
export interface DeliveryOptions extends QueueOptions {
  /** Per attempt, connection to the end of the answer (API_DECISIONS: 15 s). */
  timeoutMs: number;
  /**
   * The claim's lease, renewed every quarter of it while the attempt is in flight: it bounds how
   * long a delivery held by an instance that died waits, not how long an attempt may take.
   */
  leaseMs: number;
  /** Deliveries claimed and sent at once by one instance. */
  batchSize: number;
  /** Attempts in flight at once on one instance, per endpoint and per tenant (fair delivery). */
  perEndpoint: number;
  perTenant: number;
  /** An endpoint whose deliveries all failed for this long is disabled (`failing`). */
  failingWindowMs: number;
  /** How long shutdown waits for attempts in flight before releasing them. */
  drainMs: number;
}

export const DELIVERY_OPTIONS = Symbol('DELIVERY_OPTIONS');

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  timeoutMs: 15_000,
  leaseMs: 20_000,
  pollMs: 500,
  // Attempts in flight per instance: a receiver answering in 50 ms still takes 640 a second.
  batchSize: 32,
  // A tenant whose receivers hang holds at most 8 of the 32 slots, so the others' events still go out.
  perEndpoint: 4,
  perTenant: 8,
  failingWindowMs: 5 * 86_400_000,
  drainMs: 10_000,
};
