import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { EventRecorder } from '../events/event-recorder';
import type { Claimed, JobHandler, JobTiming, RunContext } from '../jobs/job-handler';
import { type JobQueue, JobRunner } from '../jobs/job-runner';
import { ClaimedErasure, ERASURE_BATCH_SIZE, ErasuresRepository } from './erasures.repository';
import { PRIVACY_OPTIONS, type PrivacyOptions } from './privacy-options';

/**
 * The steps of an erasure, in order, each run in batches of at most ERASURE_BATCH_SIZE rows in a
 * short transaction of its own until a batch comes back short. The person's rows go first (so no
 * new copy is made of them meanwhile), then their values in the copies: webhook payloads and
 * answers, idempotency records, audit values. Every step can run again after a crash. A webhook
 * answer recorded after its step ran (an attempt in flight meanwhile) is not stored by the delivery
 * worker (erasureOverlaps), so no final pass is needed for it.
 */
type Step = (erasure: ClaimedErasure, tx: PrismaTransaction) => Promise<number>;

/**
 * What one erasure is to the JobRunner (kind `erasures`; JOBS_DISABLED or PRIVACY_WORKER=false
 * turns it off on an instance): claimed with a lease, its steps run batch by batch, completed. At
 * shutdown it stops between two batches and gives the erasure back.
 */
@Injectable()
export class ErasureWorker implements JobHandler<ClaimedErasure>, OnModuleInit {
  readonly kind = 'erasures';
  readonly noun = 'erasures';
  private readonly logger = new Logger('Privacy');
  private readonly steps: Step[];
  private queue?: JobQueue<ClaimedErasure>;

  constructor(
    @Inject(PRIVACY_OPTIONS) private readonly options: PrivacyOptions,
    private readonly erasures: ErasuresRepository,
    private readonly prisma: PrismaService,
    private readonly events: EventRecorder,
    private readonly runner: JobRunner,
  ) {
    this.steps = [
      (erasure, tx) => this.erasures.deleteMessages(erasure, tx),
      async (erasure, tx) => {
        const ids = await this.erasures.deleteConversations(erasure, tx);
        await this.events.publishAll(
          tx,
          erasure.tenantId,
          ids.map((id) => ({ type: 'conversation.deleted', object: { id } })),
        );
        return ids.length;
      },
      async (erasure, tx) => {
        const ids = await this.erasures.deleteLeads(erasure, tx);
        await this.events.publishAll(
          tx,
          erasure.tenantId,
          ids.map((id) => ({ type: 'lead.deleted', object: { id } })),
        );
        return ids.length;
      },
      (erasure, tx) => this.erasures.redactWebhookEvents(erasure, tx),
      (erasure, tx) => this.erasures.redactDeliveryResponses(erasure, tx),
      (erasure, tx) => this.erasures.redactIdempotencyRecords(erasure, tx),
      (erasure, tx) => this.erasures.redactAuditEvents(erasure, tx),
      // Last, not beside the other rows: an erasure in flight across a deploy resumes at its stored
      // step number, which must keep naming the same step.
      async (erasure, tx) => {
        await this.erasures.deleteVisitors(erasure, tx);
        return 0;
      },
    ];
  }

  onModuleInit(): void {
    this.queue = this.runner.register(this);
  }

  /** An erasure was just requested on this instance, and its requester polls for it: look now rather than at the next poll. */
  wake(): void {
    this.queue?.wake();
  }

  timing(): JobTiming {
    return { pollMs: this.options.erasurePollMs, concurrency: 1 };
  }

  /** One erasure at a time; the runner claims the next as soon as it is done. */
  async claim(): Promise<Claimed<ClaimedErasure>> {
    const erasure = await this.erasures.claim(this.options.erasureLeaseMs, this.options.tenantIds);
    return { items: erasure ? [erasure] : [] };
  }

  async run(erasure: ClaimedErasure, { signal }: RunContext): Promise<void> {
    await this.carryOut(erasure, signal);
  }

  private async carryOut(erasure: ClaimedErasure, signal: AbortSignal): Promise<void> {
    let step = erasure.step;
    while (step < this.steps.length) {
      if (signal.aborted) return this.erasures.release(erasure.id);
      const run = this.steps[step];
      step = await this.prisma.$transaction(async (tx) => {
        const touched = await run(erasure, tx);
        const next = touched < ERASURE_BATCH_SIZE ? step + 1 : step;
        await this.erasures.advance(erasure.id, next, this.options.erasureLeaseMs, tx);
        return next;
      });
    }
    await this.prisma.$transaction((tx) => this.erasures.complete(erasure.id, tx));
    this.logger.log({ msg: 'Erasure completed', erasureId: erasure.id, tenantId: erasure.tenantId });
  }
}
