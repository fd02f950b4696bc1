import { Injectable } from '@nestjs/common';
import { BotsRepository } from '../bots/bots.repository';
import { NotFoundError } from '../common/errors/app-error';
import { isUuid } from '../common/validation/uuid';
import { KnowledgeDocumentRow, KnowledgeDocumentsRepository } from './knowledge-documents.repository';

/** A bot's knowledge base: the documents its answers come from. */
@Injectable()
export class KnowledgeService {
  constructor(
    private readonly bots: BotsRepository,
    private readonly documents: KnowledgeDocumentsRepository,
  ) {}

  async addDocument(tenantId: string, botId: string, document: { title: string; content: string }): Promise<KnowledgeDocumentRow> {
    if (!isUuid(botId) || !(await this.bots.exists(tenantId, botId))) throw new NotFoundError('Bot');
    return this.documents.create(tenantId, botId, document);
  }
}
