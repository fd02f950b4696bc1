import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';
import type { Page } from '../common/paging/pagination';

export const auditEventSelect = {
  id: true,
  actor: true,
  requestId: true,
  action: true,
  targetType: true,
  targetId: true,
  data: true,
  createdAt: true,
} satisfies Prisma.AuditEventSelect;

export type AuditEventRow = Prisma.AuditEventGetPayload<{ select: typeof auditEventSelect }>;

@Injectable()
export class AuditLogRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(tenantId: string, page: Page): Promise<AuditEventRow[]> {
    return this.prisma.auditEvent.findMany({
      where: { tenantId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
      select: auditEventSelect,
    });
  }

  count(tenantId: string): Promise<number> {
    return this.prisma.auditEvent.count({ where: { tenantId } });
  }
}
