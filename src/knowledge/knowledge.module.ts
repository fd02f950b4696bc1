import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { KnowledgeDocumentsController } from './knowledge-documents.controller';
import { KnowledgeChunksRepository } from './knowledge-chunks.repository';
import { KnowledgeDocumentsRepository } from './knowledge-documents.repository';
import { KnowledgeService } from './knowledge.service';

@Module({
  imports: [BotsModule, TenancyModule],
  controllers: [KnowledgeDocumentsController],
  providers: [KnowledgeDocumentsRepository, KnowledgeChunksRepository, KnowledgeService],
  exports: [KnowledgeService, KnowledgeChunksRepository],
})
export class KnowledgeModule {}
