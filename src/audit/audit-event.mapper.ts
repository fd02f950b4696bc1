import { ApiProperty } from '@nestjs/swagger';
import { Pagination } from '../common/paging/pagination';
import type { AuditEventRow } from './audit-log.repository';

export class AuditEventResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Who did it, e.g. `admin-api`.' })
  actor: string;

  @ApiProperty({ description: 'What happened, e.g. `apiKey.created`, `tenant.plan_changed`, `bot.deactivated`.' })
  action: string;

  @ApiProperty({ description: 'The kind of thing acted on: `tenant`, `apiKey` or `bot`.' })
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
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    data: row.data,
    createdAt: row.createdAt.toISOString(),
  };
}
