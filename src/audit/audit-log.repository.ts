import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import type { Page } from '../common/paging/pagination';

export const auditEventSelect = {
  id: true,
  actor: true,
  action: true,
  targetType: true,
  targetId: true,
  data: true,
  createdAt: true,
} satisfies Prisma.AuditEventSelect;

export type AuditEventRow = Prisma.AuditEventGetPayload<{ select: typeof auditEventSelect }>;

export interface NewAuditEvent {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  data?: Prisma.InputJsonObject;
}

@Injectable()
export class AuditLogRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tenantId: string, event: NewAuditEvent, tx: PrismaTransaction = this.prisma): Promise<unknown> {
    return tx.auditEvent.create({ data: { tenantId, ...event, data: event.data ?? {} }, select: { id: true } });
  }

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
