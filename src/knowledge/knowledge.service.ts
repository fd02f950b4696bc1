import { Injectable } from '@nestjs/common';
import { BotsRepository } from '../bots/bots.repository';
import { NotFoundError } from '../common/errors/app-error';
import { isUuid } from '../common/validation/uuid';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { KnowledgeDocumentRow, KnowledgeDocumentsRepository } from './knowledge-documents.repository';

/** A bot's knowledge base: the documents its answers come from. */
@Injectable()
export class KnowledgeService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly bots: BotsRepository,
    private readonly documents: KnowledgeDocumentsRepository,
    private readonly events: EventRecorder,
  ) {}

  async addDocument(tenantId: string, botId: string, document: { title: string; content: string }, actor: Actor): Promise<KnowledgeDocumentRow> {
    if (!isUuid(botId)) throw new NotFoundError('Bot');
    return this.prisma.$transaction(async (tx) => {
      if (!(await this.bots.exists(tenantId, botId, tx))) throw new NotFoundError('Bot');
      const created = await this.documents.create(tenantId, botId, document, tx);
      await this.events.record(tx, tenantId, actor, { action: 'knowledge_document.created', targetType: 'knowledge_document', targetId: created.id, data: { botId, title: created.title } });
      return created;
    });
  }
}
