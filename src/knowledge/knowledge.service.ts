import { Injectable } from '@nestjs/common';
import { BotsRepository } from '../bots/bots.repository';
import { NotFoundError } from '../common/errors/app-error';
import { isUuid } from '../common/validation/uuid';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { splitIntoChunks } from './chunker';
import { KnowledgeChunksRepository } from './knowledge-chunks.repository';
import { KnowledgeDocumentRow, KnowledgeDocumentsRepository } from './knowledge-documents.repository';

/** A bot's knowledge base: the documents its answers come from, and their searchable passages. */
@Injectable()
export class KnowledgeService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly bots: BotsRepository,
    private readonly documents: KnowledgeDocumentsRepository,
    private readonly chunks: KnowledgeChunksRepository,
    private readonly events: EventRecorder,
  ) {}

  async addDocument(tenantId: string, botId: string, document: { title: string; content: string }, actor: Actor): Promise<KnowledgeDocumentRow> {
    if (!isUuid(botId)) throw new NotFoundError('Bot');
    return this.prisma.$transaction(async (tx) => {
      const bot = await this.bots.findById(tenantId, botId, tx);
      if (!bot) throw new NotFoundError('Bot');
      const created = await this.documents.create(tenantId, botId, document, tx);
      // Its passages commit with it: a document is answerable from the moment it exists.
      await this.chunks.insert(tx, { tenantId, botId, documentId: created.id, title: created.title, language: bot.language }, splitIntoChunks(document.content));
      await this.events.record(tx, tenantId, actor, { action: 'knowledge_document.created', targetType: 'knowledge_document', targetId: created.id, data: { botId, title: created.title } });
      return created;
    });
  }
}
