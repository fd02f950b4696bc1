import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { Scope } from '../common/access/scopes';
import { ErrorCode } from '../common/errors/error-codes';
import { BodyLimit } from '../common/http/json-body.guard';
import type { ApiPrincipal } from '../common/http/request-context';
import { PageQueryDto, toPage } from '../common/paging/pagination';
import type { Actor } from '../events/actor';
import { CurrentActor } from '../events/actor';
import { ApiIdParam, ApiV1Endpoint, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { CreateDocumentDto, DOCUMENT_BODY_LIMIT_BYTES, UpdateDocumentDto } from './dto/create-document.dto';
import {
  KnowledgeDocumentEnvelope,
  KnowledgeDocumentListResponse,
  toKnowledgeDocumentResponse,
  toKnowledgeDocumentSummaryResponse,
} from './knowledge-document.mapper';
import { KnowledgeService } from './knowledge.service';
import { IdOf } from '../common/validation/id.pipe';

const BODY_NOTE = 'The body may be up to 1 MiB (other routes: 64 KiB): room for 200,000 characters of any script.';
const SEARCHABLE_NOTE = 'The change is searchable by the bot’s answers as soon as this answer is sent.';

@Controller('api/v1/bots/:id/documents')
@ApiTags('Knowledge documents')
export class KnowledgeDocumentsController {
  constructor(private readonly knowledge: KnowledgeService) {}

  @Get()
  @ApiV1Endpoint({
    operationId: 'listKnowledgeDocuments',
    summary: 'List a bot’s knowledge documents, newest first',
    type: KnowledgeDocumentListResponse,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.BotsRead)
  @ApiIdParam('id', 'Bot')
  async list(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) botId: string,
    @Query() query: PageQueryDto,
  ): Promise<KnowledgeDocumentListResponse> {
    const { documents, pagination } = await this.knowledge.listDocuments(tenant.id, botId, toPage(query));
    return { documents: documents.map(toKnowledgeDocumentSummaryResponse), pagination };
  }

  @Get(':docId')
  @ApiV1Endpoint({
    operationId: 'getKnowledgeDocument',
    summary: 'Get a knowledge document with its content',
    type: KnowledgeDocumentEnvelope,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.BotsRead)
  @ApiIdParam('id', 'Bot')
  @ApiIdParam('docId', 'Document')
  async get(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) botId: string,
    @Param('docId', IdOf('Document')) documentId: string,
  ): Promise<KnowledgeDocumentEnvelope> {
    return { document: toKnowledgeDocumentResponse(await this.knowledge.getDocument(tenant.id, botId, documentId)) };
  }

  @Post()
  @HttpCode(201)
  @BodyLimit(DOCUMENT_BODY_LIMIT_BYTES)
  @ApiV1Endpoint({
    operationId: 'createKnowledgeDocument',
    summary: 'Add a document to a bot’s knowledge base',
    description: `${SEARCHABLE_NOTE} ${BODY_NOTE}`,
    status: 201,
    type: KnowledgeDocumentEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.KnowledgeWrite)
  @ApiIdParam('id', 'Bot')
  async create(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) botId: string,
    @Body() body: CreateDocumentDto,
    @CurrentActor() actor: Actor,
  ): Promise<KnowledgeDocumentEnvelope> {
    return { document: toKnowledgeDocumentResponse(await this.knowledge.addDocument(tenant.id, botId, body, actor)) };
  }

  @Patch(':docId')
  @BodyLimit(DOCUMENT_BODY_LIMIT_BYTES)
  @ApiV1Endpoint({
    operationId: 'updateKnowledgeDocument',
    summary: 'Change a knowledge document’s title or content',
    description: `${SEARCHABLE_NOTE} ${BODY_NOTE}`,
    type: KnowledgeDocumentEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.KnowledgeWrite)
  @ApiIdParam('id', 'Bot')
  @ApiIdParam('docId', 'Document')
  async update(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) botId: string,
    @Param('docId', IdOf('Document')) documentId: string,
    @Body() body: UpdateDocumentDto,
    @CurrentActor() actor: Actor,
  ): Promise<KnowledgeDocumentEnvelope> {
    return { document: toKnowledgeDocumentResponse(await this.knowledge.updateDocument(tenant.id, botId, documentId, body, actor)) };
  }

  @Delete(':docId')
  @HttpCode(204)
  @ApiV1Endpoint({
    operationId: 'deleteKnowledgeDocument',
    summary: 'Delete a knowledge document',
    description: 'From this answer on, no reply cites it.',
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.KnowledgeWrite)
  @ApiIdParam('id', 'Bot')
  @ApiIdParam('docId', 'Document')
  async delete(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) botId: string,
    @Param('docId', IdOf('Document')) documentId: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.knowledge.deleteDocument(tenant.id, botId, documentId, actor);
  }
}
