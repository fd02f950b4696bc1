import type { AuditEventRow } from './audit-log.repository';

export interface AuditEventResponse {
  id: string;
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  data: unknown;
  createdAt: string;
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
