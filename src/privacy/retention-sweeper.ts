import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/env';
import type { Claimed, JobHandler, JobTiming, RunContext } from '../jobs/job-handler';
import { JobRunner } from '../jobs/job-runner';
import { PRIVACY_OPTIONS, type PrivacyOptions } from './privacy-options';
import { RetentionRepository, SWEEP_BATCH_SIZE, SWEEP_TARGETS, SweepTarget } from './retention.repository';

export type SweepCounts = Record<SweepTarget, number>;

/** The one item of the retention kind: the sweep whose lease this instance took. */
type LeasedSweep = 'sweep';

/**
 * The hourly retention sweep as the JobRunner sees it (kind `retention`; JOBS_DISABLED or
 * PRIVACY_WORKER=false turns it off on an instance): every instance looks whether it is due, one
 * takes the job's lease and deletes, in batches, the conversations and leads past their tenant's
 * retention, webhook events and deliveries older than 30 days, expired idempotency records and
 * audit rows older than AUDIT_RETENTION_DAYS. Shutdown stops it between two batches; the job is
 * then due again at once, for any instance.
 */
@Injectable()
export class RetentionSweeper implements JobHandler<LeasedSweep>, OnModuleInit {
  readonly kind = 'retention';
  readonly noun = 'the retention sweep';
  private readonly logger = new Logger('Retention');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PRIVACY_OPTIONS) private readonly options: PrivacyOptions,
    private readonly retention: RetentionRepository,
    private readonly runner: JobRunner,
  ) {}

  onModuleInit(): void {
    this.runner.register(this);
  }

  /** A look every sweepCheckMs, the first one after it too: the sweep runs hourly, whichever instance starts. */
  timing(): JobTiming {
    const { sweepCheckMs } = this.options;
    return { pollMs: sweepCheckMs, startDelayMs: sweepCheckMs, concurrency: 1 };
  }

  /** The sweep when it is due and no other instance is running it. */
  async claim(): Promise<Claimed<LeasedSweep>> {
    return { items: (await this.retention.acquire(this.options.sweepLeaseMs, false)) ? ['sweep'] : [] };
  }

  async run(_sweep: LeasedSweep, { signal }: RunContext): Promise<void> {
    await this.sweepLeased(signal);
  }

  /**
   * Runs the sweep if it is due (or at once with `force`, to the end whatever stops meanwhile) and
   * no other instance is running it; null when this instance did not run it, else what it deleted.
   */
  async sweep({ force = false }: { force?: boolean } = {}): Promise<SweepCounts | null> {
    if (!(await this.retention.acquire(this.options.sweepLeaseMs, force))) return null;
    return this.sweepLeased();
  }

  /** The sweep whose lease this instance holds, batch by batch until done or `stop` is aborted. */
  private async sweepLeased(stop?: AbortSignal): Promise<SweepCounts> {
    const { sweepLeaseMs, sweepIntervalMs, tenantIds } = this.options;
    const now = new Date();
    const counts = Object.fromEntries(SWEEP_TARGETS.map((target) => [target, 0])) as SweepCounts;
    let finished = false;
    try {
      for (const target of SWEEP_TARGETS) {
        for (;;) {
          if (stop?.aborted) return counts;
          const deleted = await this.retention.deleteBatch(target, now, this.config.privacy.auditRetentionDays, tenantIds);
          counts[target] += deleted;
          if (deleted < SWEEP_BATCH_SIZE) break;
          await this.retention.renew(sweepLeaseMs);
        }
      }
      finished = true;
      this.logger.log({ msg: 'Retention sweep done', ...counts });
      return counts;
    } finally {
      await this.retention.finish(finished ? sweepIntervalMs : 0);
    }
  }
}
