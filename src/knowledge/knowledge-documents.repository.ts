import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';

export const knowledgeDocumentSelect = { id: true, botId: true, title: true, createdAt: true } satisfies Prisma.KnowledgeDocumentSelect;

export type KnowledgeDocumentRow = Prisma.KnowledgeDocumentGetPayload<{ select: typeof knowledgeDocumentSelect }>;

@Injectable()
export class KnowledgeDocumentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(tenantId: string, botId: string, data: { title: string; content: string }, tx: PrismaTransaction = this.prisma): Promise<KnowledgeDocumentRow> {
    return tx.knowledgeDocument.create({ data: { tenantId, botId, ...data }, select: knowledgeDocumentSelect });
  }
}
