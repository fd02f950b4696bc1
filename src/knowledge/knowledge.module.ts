import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { KnowledgeDocumentsRepository } from './knowledge-documents.repository';
import { KnowledgeService } from './knowledge.service';

@Module({
  imports: [BotsModule],
  providers: [KnowledgeDocumentsRepository, KnowledgeService],
  exports: [KnowledgeService],
})
export class KnowledgeModule {}
