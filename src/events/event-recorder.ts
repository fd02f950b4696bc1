import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { PrismaTransaction } from '../database/prisma.service';
import { v7 } from 'uuid';
import { UUID_V7 } from '../database/uuid-v7';
import type { Actor } from './actor';
import type { WebhookEventType } from './webhook-event-types';

/** A change the audit log must hear of. */
export interface RecordedEvent {
  /** What happened, e.g. `tenant.plan_changed`, `api_key.created`, `bot.deactivated`. */
  action: string;
  targetType: string;
  targetId: string;
  data?: Prisma.InputJsonObject;
}

/** A change tenants' systems hear of through webhooks (API_DECISIONS, Webhooks). */
export interface PublishedEvent {
  type: WebhookEventType;
  /** The resource exactly as the API returns it. */
  object: object;
  /** On `*.updated`: the old values of what changed. */
  previousAttributes?: Record<string, unknown>;
}

/**
 * The one writer of event rows (STYLE.md, Layers: Events). It writes in the caller's transaction,
 * so an event exists exactly when its change committed: an audit row (record), and an outbox row
 * with one delivery per enabled endpoint of the tenant subscribed to it (publish), which the
 * delivery workers send.
 */
@Injectable()
export class EventRecorder {
  async record(tx: PrismaTransaction, tenantId: string, actor: Actor, event: RecordedEvent): Promise<void> {
    await tx.auditEvent.create({
      data: {
        tenantId,
        actor: actor.name,
        requestId: actor.requestId,
        ip: actor.ip,
        action: event.action,
        targetType: event.targetType,
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
    const endpoints = endpointId ? Prisma.sql`"id" = ${endpointId}::uuid` : listeningTo(event);
    const rows = await tx.$queryRaw<{ id: string; eventId: string }[]>`
      WITH ${outbox(tenantId, event, endpoints, Prisma.sql`true`)}
      SELECT "id"::text AS "id", "eventId"::text AS "eventId" FROM "delivery"`;
    return rows.length ? { eventId: rows[0].eventId, deliveryIds: rows.map((row) => row.id) } : undefined;
  }

  /**
   * Runs `change`, a data-modifying statement with RETURNING (a lead's INSERT), and queues `event`
   * if it returned a row, as one statement: atomic without a transaction around it. Creating a
   * lead took five round trips (BEGIN, bot check, insert, outbox, COMMIT) and 2,200 µs of CPU;
   * in one statement 999 µs (npm run bench:compare). Returns what `change` returned.
   */
  publishAlong<T>(db: PrismaTransaction, tenantId: string, change: Prisma.Sql, event: PublishedEvent, preceding?: Prisma.Sql): Promise<T[]> {
    return db.$queryRaw<T[]>`
      WITH ${preceding ? Prisma.sql`${preceding},` : Prisma.empty} "change" AS (${change}), ${outbox(tenantId, event, listeningTo(event), Prisma.sql`EXISTS (SELECT 1 FROM "change")`)}
      SELECT * FROM "change"`;
  }

  /**
   * Queues many events in three statements whatever their number (an import of 1,000 leads):
   * the listening endpoints are read once, the outbox rows and their deliveries written in bulk.
   * Returns the queued events only (those some endpoint listens to), in order.
   */
  async publishAll(tx: PrismaTransaction, tenantId: string, events: readonly PublishedEvent[]): Promise<QueuedEvent[]> {
    if (!events.length) return [];
    const types = [...new Set(events.map((event) => event.type))];
    const endpoints = await tx.webhookEndpoint.findMany({
      where: { tenantId, enabled: true, OR: [{ events: { hasSome: types } }, { events: { has: '*' } }] },
      select: { id: true, events: true },
    });
    if (!endpoints.length) return [];
    const listened = events
      .map((event) => ({
        event,
        endpointIds: endpoints.filter((endpoint) => endpoint.events.includes('*') || endpoint.events.includes(event.type)).map((endpoint) => endpoint.id),
      }))
      .filter(({ endpointIds }) => endpointIds.length);
    return this.queue(tx, tenantId, listened);
  }

  private async queue(tx: PrismaTransaction, tenantId: string, listened: { event: PublishedEvent; endpointIds: string[] }[]): Promise<QueuedEvent[]> {
    if (!listened.length) return [];
    // INSERT ... VALUES ... RETURNING answers the rows in the order of the VALUES list.
    const rows = await tx.webhookEvent.createManyAndReturn({
      data: listened.map(({ event }) => ({ tenantId, type: event.type, data: payloadData(event) })),
      select: { id: true },
    });
    const deliveries = await tx.webhookDelivery.createManyAndReturn({
      data: listened.flatMap(({ event, endpointIds }, i) =>
        endpointIds.map((endpointId) => ({ tenantId, endpointId, eventId: rows[i].id, eventType: event.type })),
      ),
      select: { id: true, eventId: true },
    });
    const byEvent = new Map<string, string[]>(rows.map((row) => [row.id, []]));
    for (const delivery of deliveries) byEvent.get(delivery.eventId)!.push(delivery.id);
    return rows.map((row) => ({ eventId: row.id, deliveryIds: byEvent.get(row.id)! }));
  }
}

/** An event in the outbox and its deliveries. */
export interface QueuedEvent {
  eventId: string;
  deliveryIds: string[];
}

/** The tenant's enabled endpoints subscribed to the event's type, or to every type. */
function listeningTo(event: PublishedEvent): Prisma.Sql {
  return Prisma.sql`"enabled" AND ("events" @> ARRAY[${event.type}]::text[] OR "events" @> ARRAY['*']::text[])`;
}

/**
 * The outbox's common table expressions: the event (only if an endpoint listens and `when`
 * holds) and its "delivery" rows, one per endpoint. One statement whether an endpoint listens or
 * not: this runs in every lead or conversation write, and three round trips (find the endpoints,
 * insert the event, insert its deliveries) cost 35% of lead-creation throughput with one endpoint
 * (bench, webhooks section). The event's id is made here, monotonic within a millisecond (uuid v7
 * with a counter): the events of one transaction share their createdAt, and their ids keep their order.
 */
function outbox(tenantId: string, event: PublishedEvent, endpoints: Prisma.Sql, when: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    "endpoint" AS (SELECT "id" FROM "WebhookEndpoint" WHERE "tenantId" = ${tenantId}::uuid AND ${endpoints}),
    "event" AS (
      INSERT INTO "WebhookEvent" ("id", "tenantId", "type", "data")
      SELECT ${v7()}::uuid, ${tenantId}::uuid, ${event.type}, ${JSON.stringify(payloadData(event))}::json
      WHERE EXISTS (SELECT 1 FROM "endpoint") AND ${when}
      RETURNING "id", "type"
    ),
    "delivery" AS (
      INSERT INTO "WebhookDelivery" ("id", "tenantId", "endpointId", "eventId", "eventType", "updatedAt")
      SELECT ${UUID_V7}, ${tenantId}::uuid, "endpoint"."id", "event"."id", "event"."type", now() FROM "endpoint", "event"
      RETURNING "id", "eventId"
    )`;
}

function payloadData(event: PublishedEvent): Prisma.InputJsonObject {
  return { object: event.object, ...(event.previousAttributes ? { previousAttributes: event.previousAttributes } : {}) } as Prisma.InputJsonObject;
}
