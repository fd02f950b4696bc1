import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { PrismaService } from '../../database/prisma.service';
import { describeDatabaseError } from '../../database/sql-state';
import { SYSTEM_ACTOR } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import { EndpointDeletions } from '../endpoint-deletions';
import { allowedRanges, isDeliverableAddress } from '../webhook-url';
import { Claim, ClaimedDelivery, ClaimRoom, DeliveryQueueRepository } from './delivery-queue.repository';
import type { AttemptRecord, FinishedAttempt } from './recorded-attempts';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery-options';
import { nextAttemptAt } from './retry-schedule';
import { SendableCheck } from './sendable-check';
import { AttemptResult, WebhookSender } from './webhook-sender';
import { signatureHeaders, webhookBody } from './webhook-signer';

/** An attempt this instance is making, counted against its endpoint's and tenant's caps. */
interface InFlight {
  tenantId: string;
  endpointId: string;
  done: Promise<void>;
}

/**
 * Delivers webhooks from every instance (WEBHOOK_WORKER=false turns it off on one): it claims due
 * deliveries with a lease, sends each signed, records the attempt and schedules the next, and on
 * shutdown finishes what it holds or gives it back. Fair: at most `perEndpoint` attempts per
 * endpoint and `perTenant` per tenant are in flight on this instance.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly sender: WebhookSender;
  private readonly inFlight = new Map<string, InFlight>();
  /**
   * Deliveries claimed ahead (leased, not yet sent), at most as many again as the caps allow in
   * flight: when an attempt ends, the next of its endpoint starts at once, without waiting for a
   * poll's round trip to the database, which under load was most of a slot's cycle (a burst of
   * 2,000 events went out at 0.48 of the rate they were created).
   */
  private ready: ClaimedDelivery[] = [];
  /**
   * Attempts that ended and whose outcome the next poll records, in the same statement as its
   * claim (claimDue). Their leases still hold them (renewed with those in flight), so no instance
   * claims them meanwhile; their slots are free already, as their requests are over.
   */
  private finished: FinishedAttempt[] = [];
  private running = false;
  private polling = false;
  /** An attempt ended during a poll: poll again right after it, for the room that ending made. */
  private pollAgain = false;
  private timer?: NodeJS.Timeout;
  /** A poll is due shortly because an event was queued in this process (onQueued). */
  private hinted = false;
  /** A poll is due in this turn of the event loop, for attempts that ended (attemptEnded). */
  private wakeScheduled = false;
  private renewal?: NodeJS.Timeout;
  private loop?: Promise<void>;
  /** Claims failed in a row (the database away or not migrated): the next poll waits longer, up to MAX_BACKOFF_MS. */
  private failedClaims = 0;
  private lastFailure?: string;
  /**
   * Tenants the last claim found with due deliveries it had no slot for: a slot that frees is kept
   * for them (the poll that follows claims theirs) rather than given to a tenant with more attempts
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
    private readonly queue: DeliveryQueueRepository,
    private readonly prisma: PrismaService,
    private readonly events: EventRecorder,
    private readonly deletions: EndpointDeletions,
  ) {
    const allowed = allowedRanges(config.webhooks.allowedCidrs);
    this.sender = new WebhookSender((address) => isDeliverableAddress(address, allowed), options.timeoutMs);
    this.sendable = new SendableCheck((endpointIds) => this.queue.sendable(endpointIds));
  }

  onApplicationBootstrap(): void {
    if (!this.config.webhooks.worker) return;
    this.running = true;
    this.renewal = setInterval(() => void this.renewLeases(), this.options.leaseMs / 4);
    this.renewal.unref();
    this.events.onQueued(() => this.eventQueued());
    this.deletions.onDeleted((endpointId) => this.endpointDeleted(endpointId));
    this.wake();
  }

  /**
   * An event was queued in this process: an idle worker polls in HINT_DELAY_MS rather than at its
   * interval, the time for the change's transaction to commit, and one poll for a burst of them.
   * A busy worker polls as its attempts end anyway, and one backing off keeps backing off.
   */
  private eventQueued(): void {
    if (!this.running || this.polling || this.hinted || this.inFlight.size || this.failedClaims) return;
    this.hinted = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), HINT_DELAY_MS);
    this.timer.unref();
  }

  /**
   * An endpoint deleted through this process, its deletion committed and its 204 not yet sent: its
   * deliveries claimed ahead are dropped (their rows are gone), and an attempt past its send-time
   * check is not made. Remembered for a lease's time, longer than any such attempt waits.
   */
  private endpointDeleted(endpointId: string): void {
    this.deletedEndpoints.add(endpointId);
    setTimeout(() => this.deletedEndpoints.delete(endpointId), this.options.leaseMs).unref();
    this.ready = this.ready.filter((delivery) => delivery.endpointId !== endpointId);
  }

  /** Before the database closes: stop claiming, let attempts in flight finish, or give them back. */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.loop;
    // Claimed ahead, never started: back to the queue for any instance.
    const unsent = this.ready.splice(0).map(({ id }) => id);
    if (unsent.length) await this.queue.release(unsent).catch(() => undefined);
    const held = [...this.inFlight.keys()];
    const drained = await Promise.race([
      Promise.allSettled([...this.inFlight.values()].map((attempt) => attempt.done)).then(() => true),
      sleep(this.options.drainMs).then(() => false),
    ]);
    clearInterval(this.renewal);
    if (!drained) await this.queue.release(held.filter((id) => this.inFlight.has(id))).catch(() => undefined);
    // What ended after the last poll: no poll follows now. A row locked elsewhere (its endpoint
    // being deleted) is tried again a few times, the way the next poll would have.
    for (let tries = 0; this.finished.length && tries < SHUTDOWN_RECORD_TRIES; tries++) {
      if (tries) await sleep(SHUTDOWN_RECORD_PAUSE_MS);
      await this.recordAlone(this.takeFinished());
    }
    if (this.finished.length) this.notRecorded('their rows stayed locked', this.takeFinished());
  }

  /** Records finished attempts without a claim; those it could not (rows locked elsewhere) wait for the next poll. */
  private async recordAlone(finished: FinishedAttempt[]): Promise<void> {
    try {
      this.keepUnrecorded(finished, await this.queue.recordAttempts(finished));
    } catch (error) {
      this.notRecorded(error, finished);
    }
  }

  /**
   * Puts back the attempts the statement could not record, their rows locked by another
   * transaction: the next poll records them, or finds their rows deleted and drops them. Their
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

  /** A failed renewal is retried at the next one; the lease outlasts three of them. */
  private async renewLeases(): Promise<void> {
    try {
      await this.queue.renewLeases(
        [...this.inFlight.keys(), ...this.ready.map(({ id }) => id), ...this.finished.map(({ deliveryId }) => deliveryId)],
        this.options.leaseMs,
      );
    } catch (error) {
      this.logger.warn(`Cannot renew webhook delivery leases: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }

  /**
   * Polls now, or right after the poll under way: at start, after a claim whose window was full
   * (more may be due) and whenever an attempt ends (its slot, endpoint and tenant have room again).
   * Otherwise it polls again after pollMs.
   */
  private wake(): void {
    if (!this.running) return;
    this.hinted = false;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.polling = true;
    this.loop = this.poll().then((more) => {
      this.polling = false;
      if (more || this.pollAgain) {
        this.pollAgain = false;
        return this.wake();
      }
      if (!this.running) return;
      const delayMs = this.failedClaims ? Math.min(MAX_BACKOFF_MS, this.options.pollMs * 2 ** this.failedClaims) : this.options.pollMs;
      this.timer = setTimeout(() => this.wake(), delayMs);
      this.timer.unref();
    });
  }

  /** Claims what is due and this instance has room for, and starts sending it; true when more may be due. */
  private async poll(): Promise<boolean> {
    // Claimed even without a free slot: the claim tells which tenants are waiting (startReady).
    const room = this.room();
    const finished = this.takeFinished();
    let claim: Claim;
    try {
      claim = await this.queue.claimDue(room, this.options.leaseMs, this.options.tenantIds, finished);
      this.keepUnrecorded(finished, claim.unrecorded);
    } catch (error) {
      // The outcomes alone, in case the claim was what failed: else their attempts would be made again.
      await this.recordAlone(finished);
      this.claimFailed(describeDatabaseError(error));
      return false;
    }
    if (this.failedClaims) {
      this.logger.log(`Claiming webhook deliveries again after ${this.failedClaims} failed attempt(s)`);
      this.failedClaims = 0;
      this.lastFailure = undefined;
    }
    const { claimed, more, paused, waiting, lastTenant } = claim;
    this.waiting = new Set(waiting);
    if (lastTenant) this.lastTenant = lastTenant;
    this.ready.push(...claimed);
    if (paused.length) await this.giveBackPaused(new Set(paused));
    this.startReady(new Set(claimed.map(({ id }) => id)));
    return more;
  }

  /** Deliveries claimed ahead whose endpoint the recorded attempts paused: back to the queue, their attempts unused. */
  private async giveBackPaused(paused: ReadonlySet<string>): Promise<void> {
    const given = this.ready.filter(({ endpointId }) => paused.has(endpointId)).map(({ id }) => id);
    if (!given.length) return;
    this.ready = this.ready.filter(({ endpointId }) => !paused.has(endpointId));
    await this.queue.release(given).catch(() => undefined);
  }

  /**
   * Starts the deliveries claimed ahead that the caps let in flight now, round the tenants: the
   * tenant with the fewest attempts in flight first (API_DECISIONS part 4). A slot is kept for the
   * next poll instead when a tenant with fewer attempts in flight is waiting for a claim (waiting)
   * and the poll has room to claim for it. `fresh`: claimed by the poll that called this, whose
   * endpoints the claim itself has just read; the others are checked at send time (deliver).
   */
  private startReady(fresh: ReadonlySet<string> = new Set()): void {
    if (!this.ready.length || !this.running) return;
    const { endpointsInFlight, tenantsInFlight } = this.inFlightCounts(false);
    const { batchSize, perEndpoint, perTenant } = this.options;
    const count = (counts: Map<string, number>, id: string) => counts.get(id) ?? 0;
    while (this.inFlight.size < batchSize) {
      let next = -1;
      for (const [i, delivery] of this.ready.entries()) {
        if (count(endpointsInFlight, delivery.endpointId) >= perEndpoint || count(tenantsInFlight, delivery.tenantId) >= perTenant) continue;
        if (next < 0 || count(tenantsInFlight, delivery.tenantId) < count(tenantsInFlight, this.ready[next].tenantId)) next = i;
      }
      if (next < 0) return;
      const delivery = this.ready[next];
      const turn = count(tenantsInFlight, delivery.tenantId);
      if ([...this.waiting].some((tenantId) => count(tenantsInFlight, tenantId) < turn) && this.room().slots > 0) return;
      this.ready.splice(next, 1);
      endpointsInFlight.set(delivery.endpointId, count(endpointsInFlight, delivery.endpointId) + 1);
      tenantsInFlight.set(delivery.tenantId, turn + 1);
      this.start(delivery, fresh.has(delivery.id));
    }
  }

  private start(delivery: ClaimedDelivery, fresh: boolean): void {
    const sending = this.deliver(delivery, fresh).catch((error: unknown) => {
      this.logger.warn(`Webhook delivery ${delivery.id} not recorded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    });
    this.inFlight.set(delivery.id, {
      tenantId: delivery.tenantId,
      endpointId: delivery.endpointId,
      done: sending.finally(() => this.attemptEnded(delivery.id)),
    });
  }

  /** One line per outage (and per change of its reason), not one per poll: the worker backs off meanwhile. */
  private claimFailed(reason: string): void {
    this.failedClaims++;
    if (reason === this.lastFailure) return;
    this.lastFailure = reason;
    this.logger.warn(`Cannot claim webhook deliveries: ${reason}; retrying with backoff up to ${MAX_BACKOFF_MS / 1000} s`);
  }

  /**
   * The claim's room: up to twice the caps, counting the attempts in flight and the deliveries
   * claimed ahead, so that each endpoint and tenant has its next ones ready (a tenant whose
   * receivers hang still holds at most twice perTenant, and sends at most perTenant at once).
   */
  private room(): ClaimRoom {
    const { endpointsInFlight, tenantsInFlight } = this.inFlightCounts(true);
    const { batchSize, perEndpoint, perTenant } = this.options;
    return {
      slots: AHEAD * batchSize - this.inFlight.size - this.ready.length,
      perEndpoint: AHEAD * perEndpoint,
      perTenant: AHEAD * perTenant,
      endpointsInFlight,
      tenantsInFlight,
      after: this.lastTenant,
    };
  }

  /** Attempts in flight per endpoint and per tenant, with the deliveries claimed ahead when `withReady`. */
  private inFlightCounts(withReady: boolean): { endpointsInFlight: Map<string, number>; tenantsInFlight: Map<string, number> } {
    const endpointsInFlight = new Map<string, number>();
    const tenantsInFlight = new Map<string, number>();
    for (const { endpointId, tenantId } of [...this.inFlight.values(), ...(withReady ? this.ready : [])]) {
      endpointsInFlight.set(endpointId, (endpointsInFlight.get(endpointId) ?? 0) + 1);
      tenantsInFlight.set(tenantId, (tenantsInFlight.get(tenantId) ?? 0) + 1);
    }
    return { endpointsInFlight, tenantsInFlight };
  }

  /**
   * Polls for the room the attempt made once the answers read in this turn of the event loop have
   * all ended their attempts (setImmediate): one statement records them all and claims their
   * successors, rather than one statement for the first and another for the rest.
   */
  private attemptEnded(deliveryId: string): void {
    this.inFlight.delete(deliveryId);
    this.startReady();
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wake();
    });
  }

  /**
   * Sends one attempt and records it. A delivery claimed ahead is sent only if its endpoint still
   * may be (not deleted, disabled or paused on any instance since the claim: SendableCheck), else
   * given back with its attempts unused; and never to an endpoint deleted through this process.
   */
  private async deliver(delivery: ClaimedDelivery, fresh: boolean): Promise<void> {
    if (!fresh && !(await this.sendable.check(delivery.endpointId))) {
      await this.queue.release([delivery.id]);
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
      if (!(await this.queue.lockEndpoint(delivery.endpointId, tx))) return;
      await this.queue.recordAttempt(delivery.tenantId, delivery.id, delivery.endpointId, attempt, tx);
      const reason = gone
        ? 'gone'
        : status === 'failed' && (await this.queue.failingSince(delivery.tenantId, delivery.endpointId, this.options.failingWindowMs, now, tx))
          ? 'failing'
          : undefined;
      if (reason && (await this.queue.disableEndpoint(delivery.tenantId, delivery.endpointId, reason, tx))) {
        await this.events.record(tx, delivery.tenantId, SYSTEM_ACTOR, {
          action: 'webhook.disabled',
          targetId: delivery.endpointId,
          data: { reason },
        });
      }
    });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const MAX_BACKOFF_MS = 30_000;
/** Claimed per endpoint, tenant and instance: the caps' worth in flight, and as many again ready to start. */
const AHEAD = 2;
const HINT_DELAY_MS = 10;
/** At shutdown, outcomes whose rows are locked elsewhere are tried this many times, this far apart. */
const SHUTDOWN_RECORD_TRIES = 3;
const SHUTDOWN_RECORD_PAUSE_MS = 50;
