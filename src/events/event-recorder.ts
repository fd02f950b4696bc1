import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import type { PrismaTransaction } from '../database/prisma.service';
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
      data: { tenantId, actor: actor.name, requestId: actor.requestId, action: event.action, targetType: event.targetType, targetId: event.targetId, data: event.data ?? {} },
      select: { id: true },
    });
  }

  /**
   * Queues the event for the tenant's enabled endpoints subscribed to its type (or to `*`); with
   * `endpointId`, for that endpoint alone, enabled or not (a test event). Returns the outbox row's
   * id, or undefined when no endpoint listens (then nothing is written).
   */
  async publish(tx: PrismaTransaction, tenantId: string, event: PublishedEvent, endpointId?: string): Promise<{ eventId: string; deliveryIds: string[] } | undefined> {
    const endpoints = await tx.webhookEndpoint.findMany({
      where: endpointId ? { tenantId, id: endpointId } : { tenantId, enabled: true, OR: [{ events: { has: event.type } }, { events: { has: '*' } }] },
      select: { id: true },
    });
    if (!endpoints.length) return undefined;
    const data = { object: event.object, ...(event.previousAttributes ? { previousAttributes: event.previousAttributes } : {}) } as Prisma.InputJsonObject;
    const { id: eventId } = await tx.webhookEvent.create({ data: { tenantId, type: event.type, data }, select: { id: true } });
    const deliveries = await tx.webhookDelivery.createManyAndReturn({
      data: endpoints.map((endpoint) => ({ tenantId, endpointId: endpoint.id, eventId, eventType: event.type })),
      select: { id: true },
    });
    return { eventId, deliveryIds: deliveries.map((delivery) => delivery.id) };
  }
}
