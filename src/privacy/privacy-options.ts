import type { QueueOptions } from '../jobs/queue-options';

/** How the privacy background work runs (erasures, the retention sweep); the defaults are the contract's, tests shorten them. */
export interface PrivacyOptions extends Pick<QueueOptions, 'tenantIds'> {
  /** Idle wait between looks for pending erasures. */
  erasurePollMs: number;
  /** How long a claim holds an erasure; renewed with each batch. */
  erasureLeaseMs: number;
  /** How often an instance looks whether the retention sweep is due (it runs hourly, on one instance). */
  sweepCheckMs: number;
  /** Time between two sweeps, whichever instance runs them. */
  sweepIntervalMs: number;
  /** How long a sweep holds the retention job before another instance may take it over. */
  sweepLeaseMs: number;
}

export const PRIVACY_OPTIONS = Symbol('PRIVACY_OPTIONS');

export const DEFAULT_PRIVACY_OPTIONS: PrivacyOptions = {
  erasurePollMs: 1_000,
  erasureLeaseMs: 30_000,
  sweepCheckMs: 60_000,
  sweepIntervalMs: 3_600_000,
  sweepLeaseMs: 15 * 60_000,
};
