import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_ACTION_NAMES, AUDIT_TARGET_TYPES } from '../events/event-catalogue';
import { Pagination } from '../common/paging/pagination';
import type { AuditEventRow } from './audit-log.repository';

export class AuditEventResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({
    description: 'Who did it: `user:<user id>` (a signed-in user), `api-key:<key id>`, `admin-api`, or `system` (the demo data, the webhook delivery worker).',
  })
  actor: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The `X-Request-Id` of the request that made the change; null for changes made outside a request.',
  })
  requestId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The client address of the request that made the change; null for changes made outside a request.',
  })
  ip: string | null;

  @ApiProperty({
    description: `What happened: ${AUDIT_ACTION_NAMES.map((action) => `\`${action}\``).join(', ')}. \`webhook.disabled\` is written by the delivery worker (the receiver answered 410, or failed for 5 days).`,
  })
  action: string;

  @ApiProperty({ description: `The kind of thing acted on: ${AUDIT_TARGET_TYPES.map((type) => `\`${type}\``).join(', ')}.` })
  targetType: string;

  @ApiProperty()
  targetId: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Details of the event, e.g. `{ "from": "pro", "to": "business" }`.' })
  data: unknown;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class AuditEventListResponse {
  @ApiProperty({ type: [AuditEventResponse], description: 'Newest first.' })
  events: AuditEventResponse[];

  @ApiProperty({ type: Pagination })
  pagination: Pagination;
}

export function toAuditEventResponse(row: AuditEventRow): AuditEventResponse {
  return {
    id: row.id,
    actor: row.actor,
    requestId: row.requestId,
    ip: row.ip,
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    data: row.data,
    createdAt: row.createdAt.toISOString(),
  };
}
