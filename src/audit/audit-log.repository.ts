import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';
import type { Page } from '../common/paging/pagination';

export const auditEventSelect = {
  id: true,
  actor: true,
  requestId: true,
  ip: true,
  action: true,
  targetType: true,
  targetId: true,
  data: true,
  createdAt: true,
} satisfies Prisma.AuditEventSelect;

export interface AuditEventFilter {
  actor?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

export type AuditEventRow = Prisma.AuditEventGetPayload<{ select: typeof auditEventSelect }>;

@Injectable()
export class AuditLogRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(tenantId: string, filter: AuditEventFilter, page: Page): Promise<AuditEventRow[]> {
    return this.prisma.auditEvent.findMany({
      where: whereOf(tenantId, filter),
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
      select: auditEventSelect,
    });
  }

  count(tenantId: string, filter: AuditEventFilter): Promise<number> {
    return this.prisma.auditEvent.count({ where: whereOf(tenantId, filter) });
  }
}

function whereOf(tenantId: string, filter: AuditEventFilter): Prisma.AuditEventWhereInput {
  return {
    tenantId,
    ...(filter.actor ? { actor: filter.actor.toLowerCase() } : {}),
    ...(filter.action ? { action: filter.action } : {}),
    ...(filter.from || filter.to ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lte: filter.to } : {}) } } : {}),
  };
}
