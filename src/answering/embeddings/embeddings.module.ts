import { DynamicModule, Module } from '@nestjs/common';
import { PassageEmbeddingsRepository } from '../../knowledge/passage-embeddings.repository';
import { DEFAULT_EMBEDDINGS_WORKER_OPTIONS, EMBEDDINGS_WORKER_OPTIONS, type EmbeddingsWorkerOptions } from './embeddings-options';
import { EmbeddingsWorker } from './embeddings-worker';
import { SemanticSearch } from './semantic-search';

/** The semantic step of answers: the search by meaning (imported by AnsweringModule). */
@Module({ providers: [PassageEmbeddingsRepository, SemanticSearch], exports: [PassageEmbeddingsRepository, SemanticSearch] })
export class EmbeddingsModule {}

/** Background embedding of passages: started with the app, stopped by its shutdown (EMBEDDINGS_WORKER). */
@Module({})
export class EmbeddingsWorkerModule {
  static forRoot(options: Partial<EmbeddingsWorkerOptions> = {}): DynamicModule {
    return {
      module: EmbeddingsWorkerModule,
      imports: [EmbeddingsModule],
      providers: [{ provide: EMBEDDINGS_WORKER_OPTIONS, useValue: { ...DEFAULT_EMBEDDINGS_WORKER_OPTIONS, ...options } }, EmbeddingsWorker],
    };
  }
}
