import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { PRIVACY_OPTIONS, type PrivacyOptions } from './privacy-options';
import { RetentionRepository, SWEEP_BATCH_SIZE, SWEEP_TARGETS, SweepTarget } from './retention.repository';

export type SweepCounts = Record<SweepTarget, number>;

/**
 * The hourly retention sweep (PRIVACY_WORKER=false turns it off on one instance): every instance
 * looks whether it is due, one takes the job's lease and deletes, in batches, the conversations
 * and leads past their tenant's retention, webhook events and deliveries older than 30 days,
 * expired idempotency records and audit rows older than AUDIT_RETENTION_DAYS. Shutdown stops it
 * between two batches; the job is then due again at once, for any instance.
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Retention');
  private running = false;
  private timer?: NodeJS.Timeout;
  private current?: Promise<unknown>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PRIVACY_OPTIONS) private readonly options: PrivacyOptions,
    private readonly retention: RetentionRepository,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.privacy.worker) return;
    this.running = true;
    this.timer = setInterval(() => {
      if (!this.current)
        this.current = this.sweep()
          .catch((error: unknown) => this.logger.warn(`Retention sweep failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`))
          .finally(() => (this.current = undefined));
    }, this.options.sweepCheckMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    await this.current;
  }

  /**
   * Runs the sweep if it is due (or at once with `force`) and no other instance is running it;
   * null when this instance did not run it, else what it deleted.
   */
  async sweep({ force = false }: { force?: boolean } = {}): Promise<SweepCounts | null> {
    const { sweepLeaseMs, sweepIntervalMs, tenantIds } = this.options;
    if (!(await this.retention.acquire(sweepLeaseMs, force))) return null;
    const now = new Date();
    const counts = Object.fromEntries(SWEEP_TARGETS.map((target) => [target, 0])) as SweepCounts;
    let finished = false;
    try {
      for (const target of SWEEP_TARGETS) {
        for (;;) {
          if (!this.running && !force) return counts;
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
