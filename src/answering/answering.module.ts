import { Module } from '@nestjs/common';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { AnswerService } from './answer.service';
import { EmbeddingsModule } from './embeddings/embeddings.module';

/** The widget's replies: retrieval from the knowledge base, and an optional model to write them. */
@Module({ imports: [KnowledgeModule, EmbeddingsModule], providers: [AnswerService], exports: [AnswerService] })
export class AnsweringModule {}
