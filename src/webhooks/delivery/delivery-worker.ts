import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { PrismaService } from '../../database/prisma.service';
import { describeDatabaseError } from '../../database/sql-state';
import { SYSTEM_ACTOR } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import { AttemptRecord, ClaimedDelivery, DeliveryQueueRepository } from './delivery-queue.repository';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery-options';
import { nextAttemptAt } from './retry-schedule';
import { AttemptResult, WebhookSender } from './webhook-sender';
import { signatureHeaders } from './webhook-signer';

/**
 * Delivers webhooks from every instance (WEBHOOK_WORKER=false turns it off on one): it claims due
 * deliveries with a lease, sends each signed, records the attempt and schedules the next, and on
 * shutdown finishes what it holds or gives it back.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly sender: WebhookSender;
  private readonly inFlight = new Map<string, Promise<void>>();
  private running = false;
  /** Every slot was taken at the last poll: the next one starts when an attempt ends. */
  private waitingForRoom = false;
  private timer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  /** Claims failed in a row (the database away or not migrated): the next poll waits longer, up to MAX_BACKOFF_MS. */
  private failedClaims = 0;
  private lastFailure?: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DELIVERY_OPTIONS) private readonly options: DeliveryOptions,
    private readonly queue: DeliveryQueueRepository,
    private readonly prisma: PrismaService,
    private readonly events: EventRecorder,
  ) {
    this.sender = new WebhookSender(config.webhooks.allowedCidrs, options.timeoutMs);
  }

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.worker) return;
    this.running = true;
    this.schedule(0);
  }

  /** Before the database closes: stop claiming, let attempts in flight finish, or give them back. */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.loop;
    const held = [...this.inFlight.keys()];
    const drained = await Promise.race([Promise.allSettled(this.inFlight.values()).then(() => true), sleep(this.options.drainMs).then(() => false)]);
    if (!drained) await this.queue.release(held.filter((id) => this.inFlight.has(id))).catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.loop = this.poll().then((outcome) => {
        if (outcome === 'full') this.waitingForRoom = true;
        else if (outcome === 'failed') this.schedule(Math.min(MAX_BACKOFF_MS, this.options.pollMs * 2 ** this.failedClaims));
        else this.schedule(outcome === 'claimed' ? 0 : this.options.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /**
   * Claims what is due and starts sending it: `claimed` (poll again at once), `idle` (nothing due:
   * poll after pollMs) or `full` (every slot busy: poll when an attempt ends, not pollMs later,
   * which capped an instance at batchSize deliveries per pollMs: 20 a second).
   */
  private async poll(): Promise<'claimed' | 'idle' | 'full' | 'failed'> {
    const room = this.options.batchSize - this.inFlight.size;
    if (room <= 0) return 'full';
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.queue.claimDue(room, this.options.leaseMs, this.options.tenantIds);
    } catch (error) {
      this.claimFailed(describeDatabaseError(error));
      return 'failed';
    }
    if (this.failedClaims) {
      this.logger.log(`Claiming webhook deliveries again after ${this.failedClaims} failed attempt(s)`);
      this.failedClaims = 0;
      this.lastFailure = undefined;
    }
    for (const delivery of claimed) {
      const sending = this.deliver(delivery).catch((error: unknown) => {
        this.logger.warn(`Webhook delivery ${delivery.id} not recorded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      });
      this.inFlight.set(delivery.id, sending.finally(() => this.attemptEnded(delivery.id)));
    }
    return claimed.length ? 'claimed' : 'idle';
  }

  /** One line per outage (and per change of its reason), not one per poll: the worker backs off meanwhile. */
  private claimFailed(reason: string): void {
    this.failedClaims++;
    if (reason === this.lastFailure) return;
    this.lastFailure = reason;
    this.logger.warn(`Cannot claim webhook deliveries: ${reason}; retrying with backoff up to ${MAX_BACKOFF_MS / 1000} s`);
  }

  private attemptEnded(deliveryId: string): void {
    this.inFlight.delete(deliveryId);
    if (!this.waitingForRoom) return;
    this.waitingForRoom = false;
    this.schedule(0);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const now = new Date();
    const { event, endpoint } = delivery;
    // The same bytes on every attempt: built from the stored event, in a fixed order.
    const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data });
    const secrets = [endpoint.secret, ...(endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now ? [endpoint.previousSecret] : [])];
    const result = await this.sender.send(endpoint.url, body, signatureHeaders(event.id, Math.floor(now.getTime() / 1000), body, secrets));
    await this.record(delivery, result, new Date());
  }

  private async record(delivery: ClaimedDelivery, result: AttemptResult, now: Date): Promise<void> {
    const succeeded = result.status !== undefined && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    const attempts = delivery.attempts + 1;
    const next = succeeded || gone ? null : nextAttemptAt(attempts, this.config.webhooks.retryScheduleSeconds, now, result.retryAfterSeconds);
    const status = succeeded ? 'succeeded' : next ? 'pending' : 'failed';
    const error = result.error ?? (succeeded ? null : result.status !== undefined && result.status >= 300 && result.status < 400 ? `redirect (${result.status}) not followed` : result.status !== undefined ? `HTTP ${result.status}` : null);
    const attempt: AttemptRecord = { status, attemptedAt: now, nextAttemptAt: next, responseStatus: result.status ?? null, responseBody: result.body ?? null, error, durationMs: result.durationMs };
    // A success is one statement; a failure may also disable the endpoint, in one transaction.
    if (succeeded) return this.queue.recordAttempt(delivery.id, attempt);
    await this.prisma.$transaction(async (tx) => {
      await this.queue.recordAttempt(delivery.id, attempt, tx);
      const reason = gone ? 'gone' : status === 'failed' && (await this.queue.failingSince(delivery.tenantId, delivery.endpointId, this.options.failingWindowMs, now, tx)) ? 'failing' : undefined;
      if (reason && (await this.queue.disableEndpoint(delivery.tenantId, delivery.endpointId, reason, tx))) {
        await this.events.record(tx, delivery.tenantId, SYSTEM_ACTOR, { action: 'webhook.disabled', targetType: 'webhook', targetId: delivery.endpointId, data: { reason } });
      }
    });
  }
}

const MAX_BACKOFF_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
