import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';
import { OpenApiDocumentStore } from './openapi-document.store';

@Module({
  controllers: [OpenApiController],
  providers: [OpenApiDocumentStore],
  exports: [OpenApiDocumentStore],
})
export class OpenApiModule {}
