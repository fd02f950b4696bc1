import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import type { Page } from '../common/paging/pagination';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { selectColumns } from '../database/select-columns';

/** A document as lists show it: everything but its content. */
export const knowledgeDocumentSummarySelect = {
  id: true,
  botId: true,
  title: true,
  characters: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.KnowledgeDocumentSelect;

export const knowledgeDocumentSelect = { ...knowledgeDocumentSummarySelect, content: true } satisfies Prisma.KnowledgeDocumentSelect;

export type KnowledgeDocumentSummaryRow = Prisma.KnowledgeDocumentGetPayload<{ select: typeof knowledgeDocumentSummarySelect }>;
export type KnowledgeDocumentRow = Prisma.KnowledgeDocumentGetPayload<{ select: typeof knowledgeDocumentSelect }>;

export interface KnowledgeDocumentChanges {
  title?: string;
  content?: string;
  characters?: number;
}

const DOCUMENT_COLUMNS = selectColumns(knowledgeDocumentSelect);

const newestFirst = [{ createdAt: 'desc' }, { id: 'desc' }] satisfies Prisma.KnowledgeDocumentOrderByWithRelationInput[];

@Injectable()
export class KnowledgeDocumentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A page of the bot's documents, newest first, without their content. */
  list(tenantId: string, botId: string, page: Page): Promise<KnowledgeDocumentSummaryRow[]> {
    return this.prisma.knowledgeDocument.findMany({
      where: { tenantId, botId },
      orderBy: newestFirst,
      skip: page.offset,
      take: page.limit,
      select: knowledgeDocumentSummarySelect,
    });
  }

  findById(tenantId: string, botId: string, documentId: string): Promise<KnowledgeDocumentRow | null> {
    return this.prisma.knowledgeDocument.findFirst({ where: { tenantId, botId, id: documentId }, select: knowledgeDocumentSelect });
  }

  /** The document, its row locked until the transaction ends: concurrent changes of one document apply one after the other. */
  async findForUpdate(tenantId: string, botId: string, documentId: string, tx: PrismaTransaction): Promise<KnowledgeDocumentRow | null> {
    const [document] = await tx.$queryRaw<KnowledgeDocumentRow[]>`
      SELECT ${DOCUMENT_COLUMNS} FROM "KnowledgeDocument"
      WHERE "tenantId" = ${tenantId}::uuid AND "botId" = ${botId}::uuid AND "id" = ${documentId}::uuid
      FOR UPDATE`;
    return document ?? null;
  }

  create(
    tenantId: string,
    botId: string,
    data: { title: string; content: string; characters: number },
    tx: PrismaTransaction = this.prisma,
  ): Promise<KnowledgeDocumentRow> {
    return tx.knowledgeDocument.create({ data: { tenantId, botId, ...data }, select: knowledgeDocumentSelect });
  }

  update(tenantId: string, documentId: string, changes: KnowledgeDocumentChanges, tx: PrismaTransaction): Promise<KnowledgeDocumentRow> {
    return tx.knowledgeDocument.update({ where: { id: documentId, tenantId }, data: changes, select: knowledgeDocumentSelect });
  }

  /** The characters of all the tenant's documents, but `exceptDocumentId`'s. */
  async totalCharacters(tenantId: string, tx: PrismaTransaction = this.prisma, exceptDocumentId?: string): Promise<number> {
    const { _sum } = await tx.knowledgeDocument.aggregate({
      where: { tenantId, ...(exceptDocumentId ? { id: { not: exceptDocumentId } } : {}) },
      _sum: { characters: true },
    });
    return _sum.characters ?? 0;
  }

  /** Deletes the document; its passages go with it (the foreign key cascades). */
  async delete(tenantId: string, documentId: string, tx: PrismaTransaction): Promise<boolean> {
    const { count } = await tx.knowledgeDocument.deleteMany({ where: { tenantId, id: documentId } });
    return count > 0;
  }
}
