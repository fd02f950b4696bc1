import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { KnowledgeChunksRepository } from './knowledge-chunks.repository';
import { KnowledgeDocumentsRepository } from './knowledge-documents.repository';
import { KnowledgeService } from './knowledge.service';

@Module({
  imports: [BotsModule],
  providers: [KnowledgeDocumentsRepository, KnowledgeChunksRepository, KnowledgeService],
  exports: [KnowledgeService, KnowledgeChunksRepository],
})
export class KnowledgeModule {}
