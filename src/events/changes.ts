import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import type { Actor } from './actor';
import { LIVE_EVENTS, LIVE_ONLY_EVENT_TYPES, type LiveEvent, type LiveOnlyEventType, type LiveOnlyPayload } from './event-catalogue';
import { EventRecorder, type PublishedEvent, type RecordedEvent } from './event-recorder';
import { LiveFeed } from './live-feed';

/** A change only the live streams hear of (the catalogue's LIVE_ONLY_EVENTS). */
export type LiveOnlyEvent = { [K in LiveOnlyEventType]: { type: K; object: LiveOnlyPayload<K> } }[LiveOnlyEventType];

/** Anything a use case emits: a webhook event (queued in the outbox, and live if the catalogue says so) or a live-only one. */
export type EmittedEvent = PublishedEvent | LiveOnlyEvent;

/** A live event waiting for its transaction's commit, with the conversation whose streams hear it. */
interface PendingLive {
  conversationId: string;
  event: LiveEvent;
}

/** What a use case records its changes through, inside the transaction Changes.transaction runs. */
export interface TransactionChanges {
  readonly tx: PrismaTransaction;
  /** Queues the webhook events in the outbox now; the live streams hear them once the transaction commits. */
  emit(...events: EmittedEvent[]): Promise<void>;
  /**
   * Runs `change` (a data-modifying statement with RETURNING) with the events' outbox rows in one
   * statement (EventRecorder.publishAlong): the events exist only if it returned a row.
   */
  emitAlong<T>(change: Prisma.Sql, events: readonly PublishedEvent[], preceding?: Prisma.Sql): Promise<T[]>;
  /** The audit row of the change, naming who made it. */
  audit(actor: Actor, event: RecordedEvent): Promise<void>;
}

/** Runs the transaction's work; the default is a Prisma interactive transaction, an idempotent request brings its own. */
export type TransactionRunner<T, R> = (work: (tx: PrismaTransaction) => Promise<T>) => Promise<R>;

/**
 * One change, one call (STYLE.md, The conversation core and channels): a use case emits a
 * catalogue event once; Changes writes its outbox row (and the audit row) in the transaction and,
 * after the commit, hands the live event of the same catalogue name to the streams (LiveFeed). A
 * change that rolls back is announced nowhere; a replayed idempotent request runs no work and
 * announces nothing again.
 */
@Injectable()
export class Changes {
  constructor(
    private readonly prisma: PrismaService,
    private readonly recorder: EventRecorder,
    private readonly feed: LiveFeed,
  ) {}

  /** Runs `work` in one transaction (or the one `run` opens) for the tenant; its live events go out after the commit. */
  async transaction<T, R = T>(
    tenantId: string,
    work: (changes: TransactionChanges) => Promise<T>,
    run: TransactionRunner<T, R> = (inner) => this.prisma.$transaction(inner) as Promise<unknown> as Promise<R>,
  ): Promise<R> {
    let pending: PendingLive[] = [];
    const result = await run((tx) => {
      // A runner may retry the work: only the last, committed attempt's events are announced.
      pending = [];
      return work(this.changesIn(tx, tenantId, pending));
    });
    await this.handOver(pending);
    return result;
  }

  /**
   * Runs one data-modifying statement with its events' outbox rows, atomic without a transaction
   * (EventRecorder.publishAlong), and hands the live events over when it changed something.
   */
  async along<T>(tenantId: string, change: Prisma.Sql, events: readonly PublishedEvent[], preceding?: Prisma.Sql): Promise<T[]> {
    const rows = await this.recorder.publishAlong<T>(this.prisma, tenantId, change, events, preceding);
    if (rows.length) await this.handOver(liveOf(events));
    return rows;
  }

  private changesIn(tx: PrismaTransaction, tenantId: string, pending: PendingLive[]): TransactionChanges {
    return {
      tx,
      emit: async (...events) => {
        await this.recorder.publishAll(tx, tenantId, events.filter(isPublished));
        pending.push(...liveOf(events));
      },
      emitAlong: async <T>(change: Prisma.Sql, events: readonly PublishedEvent[], preceding?: Prisma.Sql) => {
        const rows = await this.recorder.publishAlong<T>(tx, tenantId, change, events, preceding);
        if (rows.length) pending.push(...liveOf(events));
        return rows;
      },
      audit: (actor, event) => this.recorder.record(tx, tenantId, actor, event),
    };
  }

  /** The committed live events, one publication per conversation, in the order they were emitted. */
  private async handOver(pending: readonly PendingLive[]): Promise<void> {
    const byConversation = new Map<string, LiveEvent[]>();
    for (const { conversationId, event } of pending) {
      const events = byConversation.get(conversationId);
      if (events) events.push(event);
      else byConversation.set(conversationId, [event]);
    }
    for (const [conversationId, events] of byConversation) await this.feed.publish(conversationId, events);
  }
}

function isPublished(event: EmittedEvent): event is PublishedEvent {
  return !(LIVE_ONLY_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** The live events the catalogue makes of `events`. */
function liveOf(events: readonly EmittedEvent[]): PendingLive[] {
  return events.flatMap((event): PendingLive[] => {
    switch (LIVE_EVENTS[event.type]) {
      case 'message': {
        const message = (event as Extract<EmittedEvent, { type: 'message.created' }>).object;
        return [{ conversationId: message.conversationId, event: { kind: 'message', message } }];
      }
      case 'conversation': {
        const conversation = (event as Extract<EmittedEvent, { type: 'conversation.ended' }>).object;
        return [{ conversationId: conversation.id, event: { kind: 'conversation', conversation } }];
      }
      default:
        return [];
    }
  });
}
