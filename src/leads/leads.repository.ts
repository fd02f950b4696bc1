import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { LeadSource, LeadStatus } from '../generated/prisma/enums';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import type { Page } from '../common/paging/pagination';

export const leadSelect = {
  id: true,
  name: true,
  email: true,
  phone: true,
  company: true,
  message: true,
  botId: true,
  conversationId: true,
  source: true,
  status: true,
  tags: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.LeadSelect;

export type LeadRow = Prisma.LeadGetPayload<{ select: typeof leadSelect }>;

export interface LeadFilter {
  botId?: string;
  from?: Date;
  to?: Date;
  search?: string;
}

export interface NewLead {
  name: string;
  email: string;
  phone: string | null;
  company: string | null;
  message: string | null;
  botId: string | null;
  conversationId: string | null;
  source: LeadSource;
  tags: string[];
  createdAt?: Date;
}

/** Escapes LIKE wildcards so that `%`, `_` and `\` in a search match themselves. */
export function escapeLikePattern(term: string): string {
  return term.replace(/[\\%_]/g, (char) => `\\${char}`);
}

@Injectable()
export class LeadsRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(tenantId: string, filter: LeadFilter, page: Page): Promise<LeadRow[]> {
    return this.prisma.lead.findMany({
      where: this.where(tenantId, filter),
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
      select: leadSelect,
    });
  }

  count(tenantId: string, filter: LeadFilter): Promise<number> {
    return this.prisma.lead.count({ where: this.where(tenantId, filter) });
  }

  findById(tenantId: string, leadId: string, tx: PrismaTransaction = this.prisma): Promise<LeadRow | null> {
    return tx.lead.findFirst({ where: { tenantId, id: leadId }, select: leadSelect });
  }

  create(tenantId: string, data: NewLead, tx: PrismaTransaction = this.prisma): Promise<LeadRow> {
    return tx.lead.create({ data: { tenantId, ...data }, select: leadSelect });
  }

  async updateStatus(tenantId: string, leadId: string, from: LeadStatus, to: LeadStatus, tx: PrismaTransaction): Promise<boolean> {
    const { count } = await tx.lead.updateMany({ where: { tenantId, id: leadId, status: from }, data: { status: to } });
    return count === 1;
  }

  private where(tenantId: string, filter: LeadFilter): Prisma.LeadWhereInput {
    const pattern = filter.search === undefined ? undefined : escapeLikePattern(filter.search);
    return {
      tenantId,
      botId: filter.botId,
      createdAt: filter.from || filter.to ? { gte: filter.from, lte: filter.to } : undefined,
      OR: pattern
        ? [
            { name: { contains: pattern, mode: 'insensitive' } },
            { email: { contains: pattern, mode: 'insensitive' } },
            { company: { contains: pattern, mode: 'insensitive' } },
          ]
        : undefined,
    };
  }
}
