import { Injectable } from '@nestjs/common';
import { BotsRepository } from '../bots/bots.repository';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { assertSomethingSent, changedFields } from '../common/validation/changed-fields';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { PLANS } from '../tenancy/plans';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { splitIntoChunks } from './chunker';
import { KnowledgeChunksRepository } from './knowledge-chunks.repository';
import { KnowledgeDocumentRow, KnowledgeDocumentsRepository, KnowledgeDocumentSummaryRow } from './knowledge-documents.repository';

export interface DocumentInput {
  title: string;
  content: string;
}

/**
 * A bot's knowledge base: the documents its answers come from, and their searchable passages.
 * Every change of a document rewrites its passages in the change's transaction, so an answer
 * given after the change's response never quotes the old text (nor a deleted document). The bot's
 * knowledgeBaseSize is kept by the KnowledgeDocument_count trigger.
 */
@Injectable()
export class KnowledgeService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly bots: BotsRepository,
    private readonly documents: KnowledgeDocumentsRepository,
    private readonly chunks: KnowledgeChunksRepository,
    private readonly events: EventRecorder,
    private readonly tenants: TenantsRepository,
  ) {}

  /** The characters of knowledge the tenant holds: what the plan's knowledgeCharactersLimit limits. */
  knowledgeCharacters(tenantId: string): Promise<number> {
    return this.documents.totalCharacters(tenantId);
  }

  async listDocuments(tenantId: string, botId: string, page: Page): Promise<{ documents: KnowledgeDocumentSummaryRow[]; pagination: Pagination }> {
    const bot = await this.bots.findById(tenantId, botId);
    if (!bot) throw new NotFoundError('Bot');
    const documents = await this.documents.list(tenantId, botId, page);
    // knowledgeBaseSize is the bot's document count (API_DECISIONS, Bots): no second count query.
    return { documents, pagination: toPagination(page, bot.knowledgeBaseSize) };
  }

  async getDocument(tenantId: string, botId: string, documentId: string): Promise<KnowledgeDocumentRow> {
    const document = await this.documents.findById(tenantId, botId, documentId);
    if (!document) throw new NotFoundError('Document');
    return document;
  }

  async addDocument(tenantId: string, botId: string, input: DocumentInput, actor: Actor): Promise<KnowledgeDocumentRow> {
    return this.prisma.$transaction(async (tx) => {
      const bot = await this.bots.findById(tenantId, botId, tx);
      if (!bot) throw new NotFoundError('Bot');
      const characters = characterCount(input.content);
      await this.assertRoomFor(tx, tenantId, characters);
      const created = await this.documents.create(tenantId, botId, { ...input, characters }, tx);
      await this.writePassages(tx, tenantId, created, bot.language);
      await this.events.record(tx, tenantId, actor, {
        action: 'knowledge_document.created',
        targetId: created.id,
        data: auditData(created),
      });
      return created;
    });
  }

  /** PATCH: a new title, new content, or both. Nothing changed: nothing written, `updatedAt` kept, no audit event. */
  async updateDocument(tenantId: string, botId: string, documentId: string, input: Partial<DocumentInput>, actor: Actor): Promise<KnowledgeDocumentRow> {
    assertSomethingSent(input);
    return this.prisma.$transaction(async (tx) => {
      const current = await this.documents.findForUpdate(tenantId, botId, documentId, tx);
      if (!current) throw new NotFoundError('Document');
      const changes = changedFields<DocumentInput>(current, { title: input.title, content: input.content });
      if (!Object.keys(changes).length) return current;
      if (changes.content !== undefined) await this.assertRoomFor(tx, tenantId, characterCount(changes.content), documentId);
      const updated = await this.documents.update(
        tenantId,
        documentId,
        { ...changes, ...(changes.content !== undefined ? { characters: characterCount(changes.content) } : {}) },
        tx,
      );
      // The title is part of every passage's search vector, so a new title re-indexes them too.
      await this.chunks.deleteForDocument(tenantId, documentId, tx);
      const bot = (await this.bots.findById(tenantId, botId, tx))!;
      await this.writePassages(tx, tenantId, updated, bot.language);
      await this.events.record(tx, tenantId, actor, {
        action: 'knowledge_document.updated',
        targetId: documentId,
        data: { ...auditData(updated), fields: Object.keys(changes) },
      });
      return updated;
    });
  }

  async deleteDocument(tenantId: string, botId: string, documentId: string, actor: Actor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const document = await this.documents.findForUpdate(tenantId, botId, documentId, tx);
      if (!document || !(await this.documents.delete(tenantId, documentId, tx))) throw new NotFoundError('Document');
      await this.events.record(tx, tenantId, actor, {
        action: 'knowledge_document.deleted',
        targetId: documentId,
        data: auditData(document),
      });
    });
  }

  /**
   * Refuses a write that would take the tenant's knowledge past the plan's characters (403
   * PLAN_LIMIT_REACHED). The tenant's row is locked first, until the write commits: two writes
   * at once are counted one after the other, so they cannot both pass on the same total.
   */
  private async assertRoomFor(tx: PrismaTransaction, tenantId: string, characters: number, replacing?: string): Promise<void> {
    await this.tenants.lock(tenantId, tx);
    const tenant = (await this.tenants.findById(tenantId, tx))!;
    const limit = PLANS[tenant.plan].knowledgeCharactersLimit;
    const others = await this.documents.totalCharacters(tenantId, tx, replacing);
    if (others + characters > limit) {
      throw new AppError(
        ErrorCode.PLAN_LIMIT_REACHED,
        `The ${tenant.plan} plan holds ${limit} characters of knowledge; the tenant's documents have ${others}, and this one ${characters}. Shorten or delete documents, or upgrade.`,
      );
    }
  }

  /** The document's passages, committed with it: a document is answerable from the moment it exists. */
  private writePassages(tx: PrismaTransaction, tenantId: string, document: KnowledgeDocumentRow, language: string): Promise<void> {
    return this.chunks.insert(
      tx,
      { tenantId, botId: document.botId, documentId: document.id, title: document.title, language },
      splitIntoChunks(document.content),
    );
  }
}

/** Length in Unicode code points, as every character limit of the API counts (API_DECISIONS, Leads). */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** What the audit log keeps of a document: never its content. */
function auditData(document: KnowledgeDocumentSummaryRow): { botId: string; title: string; characters: number } {
  return { botId: document.botId, title: document.title, characters: document.characters };
}
