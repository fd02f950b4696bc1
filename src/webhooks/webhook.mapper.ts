import { ApiProperty } from '@nestjs/swagger';
import { Pagination } from '../common/paging/pagination';
import { WebhookDeliveryStatus } from '../generated/prisma/enums';
import { SUBSCRIBABLE_EVENTS } from '../events/event-catalogue';
import type { DeliveryRow } from './webhook-deliveries.repository';
import type { WebhookRow } from './webhook-endpoints.repository';

export const DISABLED_REASONS = ['manual', 'gone', 'failing'] as const;

/** A webhook endpoint; its secret appears only in the answers that create or rotate it. */
export class WebhookResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uri' })
  url: string;

  @ApiProperty({ type: [String], enum: SUBSCRIBABLE_EVENTS })
  events: string[];

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty()
  enabled: boolean;

  @ApiProperty({
    type: String,
    enum: DISABLED_REASONS,
    nullable: true,
    description: 'Why it is disabled: `manual`, `gone` (the receiver answered 410) or `failing` (every delivery failed for 5 days); null while enabled.',
  })
  disabledReason: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'Until when the endpoint is not tried: its last 5 attempts all timed out or failed to connect. The pause lasts 1 min, doubling with each ' +
      'pause up to 1 h; a successful attempt, a new `url` or enabling it ends it. Its deliveries wait, their attempts unused. Null when not paused.',
  })
  pausedUntil: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class WebhookEnvelope {
  @ApiProperty({ type: WebhookResponse })
  webhook: WebhookResponse;
}

export class WebhookWithSecretResponse extends WebhookEnvelope {
  @ApiProperty({ pattern: '^whsec_[A-Za-z0-9+/]{43}=$', description: 'The signing secret, shown only in this answer.' })
  secret: string;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookResponse], description: 'Oldest first.' })
  webhooks: WebhookResponse[];
}

export class DeliveryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The event id, sent as `webhook-id` on every attempt.' })
  eventId: string;

  @ApiProperty()
  eventType: string;

  @ApiProperty({ enum: Object.values(WebhookDeliveryStatus), enumName: 'WebhookDeliveryStatus', description: '`failed` once its retries are exhausted.' })
  status: WebhookDeliveryStatus;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastAttemptAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the next attempt is due; null once succeeded or failed.' })
  nextAttemptAt: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  lastResponseStatus: number | null;

  @ApiProperty({ type: String, nullable: true })
  lastError: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class DeliveryEnvelope {
  @ApiProperty({ type: DeliveryResponse })
  delivery: DeliveryResponse;
}

export class DeliveryListResponse {
  @ApiProperty({ type: [DeliveryResponse], description: 'Newest first.' })
  deliveries: DeliveryResponse[];

  @ApiProperty({ type: Pagination })
  pagination: Pagination;
}

export function toWebhookResponse(row: WebhookRow, now = new Date()): WebhookResponse {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    pausedUntil: row.pausedUntil && row.pausedUntil > now ? row.pausedUntil.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toDeliveryResponse(row: DeliveryRow): DeliveryResponse {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    lastResponseStatus: row.lastResponseStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
  };
}
