import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { PrismaService } from '../../database/prisma.service';
import { SYSTEM_ACTOR } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import type { Claimed, Held, JobHandler, JobTiming, RunContext } from '../../jobs/job-handler';
import { type JobQueue, JobRunner } from '../../jobs/job-runner';
import { EndpointDeletions } from '../endpoint-deletions';
import { allowedRanges, isDeliverableAddress } from '../webhook-url';
import { Claim, ClaimedDelivery, ClaimRoom, DeliveryQueueRepository } from './delivery-queue.repository';
import type { AttemptRecord, FinishedAttempt } from './recorded-attempts';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery-options';
import { nextAttemptAt } from './retry-schedule';
import { SendableCheck } from './sendable-check';
import { AttemptResult, WebhookSender } from './webhook-sender';
import { signatureHeaders, webhookBody } from './webhook-signer';

/**
 * What one webhook delivery is to the JobRunner (kind `deliveries`; JOBS_DISABLED or
 * WEBHOOK_WORKER=false turns it off on an instance): claimed with a lease, sent signed, its attempt
 * recorded and the next scheduled; at shutdown the runner lets attempts in flight finish within
 * drainMs and gives back the rest. Fair: at most `perEndpoint` attempts per endpoint and
 * `perTenant` per tenant are in flight on this instance (next()), and the claim goes round the
 * tenants (DeliveryQueueRepository.claimDue).
 */
@Injectable()
export class DeliveryWorker implements JobHandler<ClaimedDelivery>, OnModuleInit, BeforeApplicationShutdown {
  readonly kind = 'deliveries';
  readonly noun = 'webhook deliveries';
  private readonly logger = new Logger('Webhooks');
  private readonly sender: WebhookSender;
  private queue!: JobQueue<ClaimedDelivery>;
  /**
   * Attempts that ended and whose outcome the next claim records, in the same statement (claimDue).
   * Their leases still hold them (renewed with those in flight), so no instance claims them
   * meanwhile; their slots are free already, as their requests are over.
   */
  private finished: FinishedAttempt[] = [];
  /**
   * Tenants the last claim found with due deliveries it had no slot for: a slot that frees is kept
   * for them (the claim that follows takes theirs) rather than given to a tenant with more attempts
   * in flight whose deliveries were claimed ahead, so claims ahead cannot keep a tenant waiting.
   */
  private waiting: ReadonlySet<string> = new Set();
  /** The tenant the last claim's last slot went to: the next claim's round starts after it. */
  private lastTenant?: string;
  /** Endpoints deleted through this process: nothing more is sent to them (a delivery past its send-time check included). */
  private readonly deletedEndpoints = new Set<string>();
  private readonly sendable: SendableCheck;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DELIVERY_OPTIONS) private readonly options: DeliveryOptions,
    private readonly deliveries: DeliveryQueueRepository,
    private readonly prisma: PrismaService,
    private readonly events: EventRecorder,
    private readonly deletions: EndpointDeletions,
    private readonly runner: JobRunner,
  ) {
    const allowed = allowedRanges(config.webhooks.allowedCidrs);
    this.sender = new WebhookSender((address) => isDeliverableAddress(address, allowed), options.timeoutMs);
    this.sendable = new SendableCheck((endpointIds) => this.deliveries.sendable(endpointIds));
  }

  onModuleInit(): void {
    this.queue = this.runner.register(this);
    if (!this.queue.enabled) return;
    // An event queued in this process: an idle runner claims in HINT_DELAY_MS, the time for the
    // change's transaction to commit, and once for a burst of them.
    this.events.onQueued(() => this.queue.wake());
    this.deletions.onDeleted((endpointId) => this.endpointDeleted(endpointId));
  }

  /**
   * The hook the app's close runs before the database closes (the runner's own does the same).
   * An app closed without its init (the offline exports of src/cli) registered nothing.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.queue) await this.queue.stop();
  }

  timing(): JobTiming {
    const { pollMs, batchSize, leaseMs, drainMs } = this.options;
    return { pollMs, concurrency: batchSize, ahead: AHEAD, claimWhenFull: true, wakeDelayMs: HINT_DELAY_MS, leaseMs, graceMs: drainMs };
  }

  /**
   * An endpoint deleted through this process, its deletion committed and its 204 not yet sent: its
   * deliveries claimed ahead are dropped (their rows are gone), and an attempt past its send-time
   * check is not made. Remembered for a lease's time, longer than any such attempt waits.
   */
  private endpointDeleted(endpointId: string): void {
    this.deletedEndpoints.add(endpointId);
    setTimeout(() => this.deletedEndpoints.delete(endpointId), this.options.leaseMs).unref();
    this.queue.drop((delivery) => delivery.endpointId === endpointId);
  }

  /**
   * Claims what is due and this instance has room for, recording in the same statement the
   * attempts that ended since the last claim. Called even without a free slot: the claim tells
   * which tenants are waiting (next()).
   */
  async claim(held: Held<ClaimedDelivery>): Promise<Claimed<ClaimedDelivery>> {
    const finished = this.takeFinished();
    let claim: Claim;
    try {
      claim = await this.deliveries.claimDue(this.room(held), this.options.leaseMs, this.options.tenantIds, finished);
      this.keepUnrecorded(finished, claim.unrecorded);
    } catch (error) {
      // The outcomes alone, in case the claim was what failed: else their attempts would be made again.
      await this.recordAlone(finished);
      throw error;
    }
    const { claimed, more, paused, waiting, lastTenant } = claim;
    this.waiting = new Set(waiting);
    if (lastTenant) this.lastTenant = lastTenant;
    // Deliveries claimed ahead whose endpoint the recorded attempts paused: back to the queue, their attempts unused.
    if (paused.length) await this.giveBack(this.queue.drop((delivery) => paused.includes(delivery.endpointId))).catch(() => undefined);
    return { items: claimed, more };
  }

  /**
   * The delivery claimed ahead to start in a free slot, round the tenants: the tenant with the
   * fewest attempts in flight first (API_DECISIONS part 4), within the caps per endpoint and per
   * tenant. None (-1) when a tenant with fewer attempts in flight is waiting for a claim (waiting)
   * and the claim has room to take its deliveries: the slot is kept for the next claim.
   */
  next({ running, ready, slots }: Held<ClaimedDelivery>): number {
    const { endpointsInFlight, tenantsInFlight } = countsOf(running);
    const { perEndpoint, perTenant } = this.options;
    const count = (counts: Map<string, number>, id: string) => counts.get(id) ?? 0;
    let next = -1;
    for (const [i, delivery] of ready.entries()) {
      if (count(endpointsInFlight, delivery.endpointId) >= perEndpoint || count(tenantsInFlight, delivery.tenantId) >= perTenant) continue;
      if (next < 0 || count(tenantsInFlight, delivery.tenantId) < count(tenantsInFlight, ready[next].tenantId)) next = i;
    }
    if (next < 0) return -1;
    const turn = count(tenantsInFlight, ready[next].tenantId);
    if ([...this.waiting].some((tenantId) => count(tenantsInFlight, tenantId) < turn) && slots > 0) return -1;
    return next;
  }

  /** Sends one attempt; a failure to record it is logged here, as its lease runs out and another claim makes it again. */
  async run(delivery: ClaimedDelivery, { fresh }: RunContext): Promise<void> {
    try {
      await this.deliver(delivery, fresh);
    } catch (error) {
      this.logger.warn(`Webhook delivery ${delivery.id} not recorded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }

  /** A failed renewal is retried at the next one; the lease outlasts three of them. */
  async renew(held: readonly ClaimedDelivery[]): Promise<void> {
    await this.deliveries.renewLeases([...held.map(({ id }) => id), ...this.finished.map(({ deliveryId }) => deliveryId)], this.options.leaseMs);
  }

  async giveBack(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    await this.deliveries.release(deliveries.map(({ id }) => id));
  }

  /**
   * What ended after the last claim, once the attempts are over or given back: no claim follows
   * now. A row locked elsewhere (its endpoint being deleted) is tried again a few times, the way
   * the next claim would have.
   */
  async stop(): Promise<void> {
    for (let tries = 0; this.finished.length && tries < SHUTDOWN_RECORD_TRIES; tries++) {
      if (tries) await sleep(SHUTDOWN_RECORD_PAUSE_MS);
      await this.recordAlone(this.takeFinished());
    }
    if (this.finished.length) this.notRecorded('their rows stayed locked', this.takeFinished());
  }

  /** Records finished attempts without a claim; those it could not (rows locked elsewhere) wait for the next claim. */
  private async recordAlone(finished: FinishedAttempt[]): Promise<void> {
    try {
      this.keepUnrecorded(finished, await this.deliveries.recordAttempts(finished));
    } catch (error) {
      this.notRecorded(error, finished);
    }
  }

  /**
   * Puts back the attempts the statement could not record, their rows locked by another
   * transaction: the next claim records them, or finds their rows deleted and drops them. Their
   * leases are still renewed meanwhile.
   */
  private keepUnrecorded(finished: readonly FinishedAttempt[], unrecorded: readonly string[]): void {
    if (!unrecorded.length) return;
    const ids = new Set(unrecorded);
    this.finished.push(...finished.filter(({ deliveryId }) => ids.has(deliveryId)));
  }

  private takeFinished(): FinishedAttempt[] {
    const finished = this.finished;
    this.finished = [];
    return finished;
  }

  /** One line per batch that could not be written: their leases run out, and the attempts are made again (recorded as interrupted). */
  private notRecorded(error: unknown, finished: readonly FinishedAttempt[] = []): void {
    const ids = finished.length ? ` (${finished.map(({ deliveryId }) => deliveryId).join(', ')})` : '';
    this.logger.warn(`Webhook delivery attempts not recorded${ids}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }

  /**
   * The claim's room: up to twice the caps, counting the attempts in flight and the deliveries
   * claimed ahead, so that each endpoint and tenant has its next ones ready (a tenant whose
   * receivers hang still holds at most twice perTenant, and sends at most perTenant at once).
   */
  private room({ running, ready, slots }: Held<ClaimedDelivery>): ClaimRoom {
    const { endpointsInFlight, tenantsInFlight } = countsOf([...running, ...ready]);
    return {
      slots,
      perEndpoint: AHEAD * this.options.perEndpoint,
      perTenant: AHEAD * this.options.perTenant,
      endpointsInFlight,
      tenantsInFlight,
      after: this.lastTenant,
    };
  }

  /**
   * Sends one attempt and records it. A delivery claimed ahead is sent only if its endpoint still
   * may be (not deleted, disabled or paused on any instance since the claim: SendableCheck), else
   * given back with its attempts unused; and never to an endpoint deleted through this process.
   */
  private async deliver(delivery: ClaimedDelivery, fresh: boolean): Promise<void> {
    if (!fresh && !(await this.sendable.check(delivery.endpointId))) {
      await this.deliveries.release([delivery.id]);
      return;
    }
    if (this.deletedEndpoints.has(delivery.endpointId)) return;
    const now = new Date();
    const { event, endpoint } = delivery;
    const body = webhookBody(event);
    const secrets = [
      endpoint.secret,
      ...(endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now ? [endpoint.previousSecret] : []),
    ];
    const result = await this.sender.send(endpoint.url, body, signatureHeaders(event.id, Math.floor(now.getTime() / 1000), body, secrets));
    await this.record(delivery, result, new Date());
  }

  private async record(delivery: ClaimedDelivery, result: AttemptResult, now: Date): Promise<void> {
    const succeeded = result.status !== undefined && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    const attempts = delivery.attempts + 1;
    const next = succeeded || gone ? null : nextAttemptAt(attempts, this.config.webhooks.retryScheduleSeconds, now, result.retryAfterSeconds);
    const status = succeeded ? 'succeeded' : next ? 'pending' : 'failed';
    const error =
      result.error ??
      (succeeded
        ? null
        : result.status !== undefined && result.status >= 300 && result.status < 400
          ? `redirect (${result.status}) not followed`
          : result.status !== undefined
            ? `HTTP ${result.status}`
            : null);
    const attempt: AttemptRecord = {
      status,
      attemptedAt: now,
      nextAttemptAt: next,
      responseStatus: result.status ?? null,
      responseBody: result.body ?? null,
      error,
      durationMs: result.durationMs,
    };
    if (!succeeded) {
      // One structured line per failure, with the reason and never a stack (the reason is one line).
      this.logger.warn({
        msg: 'Webhook delivery attempt failed',
        deliveryId: delivery.id,
        tenantId: delivery.tenantId,
        endpointId: delivery.endpointId,
        attempt: attempts,
        status,
        reason: error,
      });
    }
    // An attempt that cannot disable its endpoint (a success, or a failure with a retry to come) is
    // recorded by the next poll with the others that ended meanwhile; a final failure may disable
    // the endpoint, in one transaction with its record, before its slot is given back.
    if (!gone && status !== 'failed') {
      this.finished.push({ deliveryId: delivery.id, endpointId: delivery.endpointId, attempt });
      return;
    }
    await this.prisma.$transaction(async (tx) => {
      // The endpoint first, as its deletion locks it before its deliveries; gone, so is the delivery.
      if (!(await this.deliveries.lockEndpoint(delivery.endpointId, tx))) return;
      await this.deliveries.recordAttempt(delivery.tenantId, delivery.id, delivery.endpointId, attempt, tx);
      const reason = gone
        ? 'gone'
        : status === 'failed' && (await this.deliveries.failingSince(delivery.tenantId, delivery.endpointId, this.options.failingWindowMs, now, tx))
          ? 'failing'
          : undefined;
      if (reason && (await this.deliveries.disableEndpoint(delivery.tenantId, delivery.endpointId, reason, tx))) {
        await this.events.record(tx, delivery.tenantId, SYSTEM_ACTOR, {
          action: 'webhook.disabled',
          targetId: delivery.endpointId,
          data: { reason },
        });
      }
    });
  }
}

/** Attempts per endpoint and per tenant among these deliveries. */
function countsOf(deliveries: readonly ClaimedDelivery[]): { endpointsInFlight: Map<string, number>; tenantsInFlight: Map<string, number> } {
  const endpointsInFlight = new Map<string, number>();
  const tenantsInFlight = new Map<string, number>();
  for (const { endpointId, tenantId } of deliveries) {
    endpointsInFlight.set(endpointId, (endpointsInFlight.get(endpointId) ?? 0) + 1);
    tenantsInFlight.set(tenantId, (tenantsInFlight.get(tenantId) ?? 0) + 1);
  }
  return { endpointsInFlight, tenantsInFlight };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Claimed per endpoint, tenant and instance: the caps' worth in flight, and as many again ready to start. */
const AHEAD = 2;
const HINT_DELAY_MS = 10;
/** At shutdown, outcomes whose rows are locked elsewhere are tried this many times, this far apart. */
const SHUTDOWN_RECORD_TRIES = 3;
const SHUTDOWN_RECORD_PAUSE_MS = 50;
