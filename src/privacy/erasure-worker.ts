import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { EventRecorder } from '../events/event-recorder';
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
 * Carries out pending erasures from every instance (PRIVACY_WORKER=false turns it off on one): it
 * claims one with a lease, runs its steps batch by batch, and completes it. On shutdown it stops
 * between two batches and gives the erasure back.
 */
@Injectable()
export class ErasureWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Privacy');
  private running = false;
  private polling = false;
  private timer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  private readonly steps: Step[];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(PRIVACY_OPTIONS) private readonly options: PrivacyOptions,
    private readonly erasures: ErasuresRepository,
    private readonly prisma: PrismaService,
    private readonly events: EventRecorder,
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
    ];
  }

  onApplicationBootstrap(): void {
    if (!this.config.privacy.worker) return;
    this.running = true;
    this.schedule(0);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.loop;
  }

  /**
   * Looks for work now rather than at the next poll: an erasure was just requested on this
   * instance, and its requester polls for it. Nothing happens while a poll runs (it continues
   * with the next erasure on its own).
   */
  wake(): void {
    if (!this.running || this.polling) return;
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.polling = true;
      this.loop = this.poll().then((found) => {
        this.polling = false;
        this.schedule(found ? 0 : this.options.erasurePollMs);
      });
    }, ms);
    this.timer.unref();
  }

  /** Claims one erasure and carries it out; true when one was found (another may be waiting). */
  private async poll(): Promise<boolean> {
    try {
      const erasure = await this.erasures.claim(this.options.erasureLeaseMs, this.options.tenantIds);
      if (!erasure) return false;
      await this.carryOut(erasure);
      return true;
    } catch (error) {
      this.logger.warn(`Erasure not carried out yet: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      return false;
    }
  }

  private async carryOut(erasure: ClaimedErasure): Promise<void> {
    let step = erasure.step;
    while (step < this.steps.length) {
      if (!this.running) return this.erasures.release(erasure.id);
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
