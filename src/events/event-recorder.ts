import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { PrismaTransaction } from '../database/prisma.service';
import { v7 } from 'uuid';
import { UUID_V7 } from '../database/uuid-v7';
import type { Actor } from './actor';
import { type AuditAction, auditTargetOf, type WebhookEventType, type WebhookPayload } from './event-catalogue';

/** A change the audit log must hear of; its `targetType` comes from the catalogue. */
export interface RecordedEvent {
  action: AuditAction;
  targetId: string;
  data?: Prisma.InputJsonObject;
}

/** A change tenants' systems hear of through webhooks (API_DECISIONS, Webhooks), its object typed by the catalogue. */
export type PublishedEvent = {
  [K in WebhookEventType]: {
    type: K;
    /** The resource exactly as the API returns it. */
    object: WebhookPayload<K>;
    /** On `*.updated`: the old values of what changed. */
    previousAttributes?: Record<string, unknown>;
  };
}[WebhookEventType];

/** An event in the outbox and its deliveries. */
export interface QueuedEvent {
  eventId: string;
  deliveryIds: string[];
}

/**
 * The one writer of event rows (STYLE.md, Layers: Events). It writes in the caller's transaction,
 * so an event exists exactly when its change committed: an audit row (record), and outbox rows
 * with one delivery per enabled endpoint of the tenant subscribed to them (publish), which the
 * delivery workers send. Every outbox row, one or a thousand, is written by one statement (outbox).
 */
@Injectable()
export class EventRecorder {
  private readonly queuedListeners: (() => void)[] = [];

  /**
   * `listener` hears, in this process, of each statement that may have queued deliveries: the
   * delivery worker then polls at once instead of at its next interval (up to 500 ms later). A
   * hint only: the change may not have committed yet, and other instances hear of nothing.
   */
  onQueued(listener: () => void): void {
    this.queuedListeners.push(listener);
  }

  private queued(): void {
    for (const listener of this.queuedListeners) listener();
  }

  async record(tx: PrismaTransaction, tenantId: string, actor: Actor, event: RecordedEvent): Promise<void> {
    await tx.auditEvent.create({
      data: {
        tenantId,
        actor: actor.name,
        requestId: actor.requestId,
        ip: actor.ip,
        action: event.action,
        targetType: auditTargetOf(event.action),
        targetId: event.targetId,
        data: event.data ?? {},
      },
      select: { id: true },
    });
  }

  /**
   * Queues the event for the tenant's enabled endpoints subscribed to its type (or to `*`); with
   * `endpointId`, for that endpoint alone, enabled or not (a test event). Returns the outbox row's
   * id, or undefined when no endpoint listens (then nothing is written).
   */
  async publish(tx: PrismaTransaction, tenantId: string, event: PublishedEvent, endpointId?: string): Promise<QueuedEvent | undefined> {
    const [queued] = await queuedOf(tx.$queryRaw<DeliveryRow[]>`WITH ${outbox(tenantId, [event], { endpointId })} ${DELIVERIES}`);
    if (queued) this.queued();
    return queued;
  }

  /**
   * Queues many events in one statement whatever their number (an import of 1,000 leads, the
   * messages of a recorded conversation). Returns the queued events only (those some endpoint
   * listens to), in order.
   */
  async publishAll(tx: PrismaTransaction, tenantId: string, events: readonly PublishedEvent[]): Promise<QueuedEvent[]> {
    if (!events.length) return [];
    const queued = await queuedOf(tx.$queryRaw<DeliveryRow[]>`WITH ${outbox(tenantId, events, {})} ${DELIVERIES}`);
    if (queued.length) this.queued();
    return queued;
  }

  /**
   * Runs `change`, a data-modifying statement with RETURNING (a lead's INSERT), and queues the
   * event (or events) if it returned a row, as one statement: atomic without a transaction around it. Creating a
   * lead took five round trips (BEGIN, bot check, insert, outbox, COMMIT) and 2,200 µs of CPU;
   * in one statement 999 µs (npm run bench:compare). Returns what `change` returned.
   */
  async publishAlong<T>(
    db: PrismaTransaction,
    tenantId: string,
    change: Prisma.Sql,
    events: PublishedEvent | readonly PublishedEvent[],
    preceding?: Prisma.Sql,
  ): Promise<T[]> {
    const changed = await db.$queryRaw<T[]>`
      WITH ${preceding ? Prisma.sql`${preceding},` : Prisma.empty} "change" AS (${change}), ${outbox(tenantId, Array.isArray(events) ? events : [events as PublishedEvent], { when: Prisma.sql`EXISTS (SELECT 1 FROM "change")` })}
      SELECT * FROM "change"`;
    // Whether an endpoint listened is not returned: a hint for every change made.
    if (changed.length) this.queued();
    return changed;
  }
}

interface DeliveryRow {
  id: string;
  eventId: string;
}

const DELIVERIES = Prisma.sql`SELECT "id"::text AS "id", "eventId"::text AS "eventId" FROM "delivery" ORDER BY "eventId", "id"`;

/** The deliveries grouped by event, in the events' order (their ids are monotonic, see outbox). */
async function queuedOf(rows: Promise<DeliveryRow[]>): Promise<QueuedEvent[]> {
  const byEvent = new Map<string, string[]>();
  for (const row of await rows) byEvent.set(row.eventId, [...(byEvent.get(row.eventId) ?? []), row.id]);
  return [...byEvent].map(([eventId, deliveryIds]) => ({ eventId, deliveryIds }));
}

/**
 * The outbox's common table expressions: the events that some endpoint listens to (and only if
 * `when` holds), and their "delivery" rows, one per listening endpoint. One statement whether an
 * endpoint listens or not: this runs in every lead or conversation write, and three round trips
 * (find the endpoints, insert the event, insert its deliveries) cost 35% of lead-creation
 * throughput with one endpoint (bench, webhooks section). The events' ids are made here,
 * monotonic within a millisecond (uuid v7 with a counter): the events of one transaction share
 * their createdAt, and their ids keep their order. The payload goes in as text and is cast to
 * json, so the stored bytes are exactly JSON.stringify's, which every delivery attempt sends.
 * With `endpointId`, that endpoint alone receives the events, enabled or not (a test event).
 * The endpoints are read FOR KEY SHARE, the lock the deliveries' foreign key takes anyway, but
 * taken when they are read: an endpoint whose deletion commits meanwhile is skipped (or its
 * deletion waits for this transaction), where a deletion committed between the read and the
 * insert failed the foreign key (23503, a 500 for the lead; 5 of 4,500 racing creates).
 */
function outbox(tenantId: string, events: readonly PublishedEvent[], { endpointId, when }: { endpointId?: string; when?: Prisma.Sql }): Prisma.Sql {
  const endpoints = endpointId ? Prisma.sql`"id" = ${endpointId}::uuid` : Prisma.sql`"enabled"`;
  const listens = (type: Prisma.Sql) =>
    endpointId ? Prisma.sql`true` : Prisma.sql`("endpoint"."events" @> ARRAY[${type}]::text[] OR "endpoint"."events" @> ARRAY['*']::text[])`;
  return Prisma.sql`
    "endpoint" AS (SELECT "id", "events" FROM "WebhookEndpoint" WHERE "tenantId" = ${tenantId}::uuid AND ${endpoints} FOR KEY SHARE),
    "input" AS (
      SELECT * FROM unnest(${events.map(() => v7())}::uuid[], ${events.map((event) => event.type)}::text[], ${events.map(payloadText)}::text[]) AS "input"("id", "type", "data")
    ),
    "event" AS (
      INSERT INTO "WebhookEvent" ("id", "tenantId", "type", "data")
      SELECT "input"."id", ${tenantId}::uuid, "input"."type", "input"."data"::json FROM "input"
      WHERE EXISTS (SELECT 1 FROM "endpoint" WHERE ${listens(Prisma.sql`"input"."type"`)}) AND ${when ?? Prisma.sql`true`}
      RETURNING "id", "type"
    ),
    "delivery" AS (
      INSERT INTO "WebhookDelivery" ("id", "tenantId", "endpointId", "eventId", "eventType", "updatedAt")
      SELECT ${UUID_V7}, ${tenantId}::uuid, "endpoint"."id", "event"."id", "event"."type", now() FROM "event" JOIN "endpoint" ON ${listens(Prisma.sql`"event"."type"`)}
      RETURNING "id", "eventId"
    )`;
}

/** The row's `data`: `{ object, previousAttributes? }`. */
function payloadText(event: PublishedEvent): string {
  return JSON.stringify({ object: event.object, ...(event.previousAttributes ? { previousAttributes: event.previousAttributes } : {}) });
}
