import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotEnvelope, toBotResponse } from '../bots/bot.mapper';
import { BotsService } from '../bots/bots.service';
import { AdminOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import type { Actor } from '../events/actor';
import { CurrentActor } from '../events/actor';
import { ApiAdminEndpoint, ApiIdParam, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { ConversationEnvelope, toConversationResponse } from '../conversations/conversation.mapper';
import { ConversationsService } from '../conversations/conversations.service';
import { BodyLimit } from '../common/http/json-body.guard';
import { CreateDocumentDto, DOCUMENT_BODY_LIMIT_BYTES } from '../knowledge/dto/create-document.dto';
import { KnowledgeDocumentEnvelope, toKnowledgeDocumentResponse } from '../knowledge/knowledge-document.mapper';
import { KnowledgeService } from '../knowledge/knowledge.service';
import { CreateBotDto, UpdateBotDto } from '../bots/dto/bot.dto';
import { RecordConversationDto } from '../conversations/dto/record-conversation.dto';
import { TenantIdPipe } from './tenant-id.pipe';
import { IdOf } from '../common/validation/id.pipe';

@Controller('admin/v1/tenants/:tenantId/bots')
@AdminOnly()
@ApiTags('Admin')
export class AdminBotsController {
  constructor(
    private readonly bots: BotsService,
    private readonly conversations: ConversationsService,
    private readonly knowledge: KnowledgeService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiAdminEndpoint({
    operationId: 'createBot',
    summary: 'Create a bot',
    description: "Within the plan's bot limit.",
    status: 201,
    type: BotEnvelope,
    errors: [...JSON_BODY_ERRORS, ErrorCode.PLAN_LIMIT_REACHED],
  })
  @ApiIdParam('tenantId', 'Tenant')
  async create(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: CreateBotDto, @CurrentActor() actor: Actor): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.createBot(tenantId, body, actor)) };
  }

  @Patch(':botId')
  @ApiAdminEndpoint({ operationId: 'updateBot', summary: 'Change a bot’s settings or switch it on or off', type: BotEnvelope, errors: JSON_BODY_ERRORS })
  @ApiIdParam('tenantId', 'Tenant')
  @ApiIdParam('botId', 'Bot')
  async update(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('botId', IdOf('Bot')) botId: string,
    @Body() body: UpdateBotDto,
    @CurrentActor() actor: Actor,
  ): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.updateBot(tenantId, botId, body, actor)) };
  }

  @Post(':botId/documents')
  @HttpCode(201)
  @BodyLimit(DOCUMENT_BODY_LIMIT_BYTES)
  @ApiAdminEndpoint({
    operationId: 'addKnowledgeDocument',
    summary: 'Add a document to a bot’s knowledge base',
    description: 'As `POST /api/v1/bots/{id}/documents`; the body may be up to 1 MiB.',
    status: 201,
    type: KnowledgeDocumentEnvelope,
    errors: JSON_BODY_ERRORS,
  })
  @ApiIdParam('tenantId', 'Tenant')
  @ApiIdParam('botId', 'Bot')
  async addDocument(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('botId', IdOf('Bot')) botId: string,
    @Body() body: CreateDocumentDto,
    @CurrentActor() actor: Actor,
  ): Promise<KnowledgeDocumentEnvelope> {
    return { document: toKnowledgeDocumentResponse(await this.knowledge.addDocument(tenantId, botId, body, actor)) };
  }

  @Post(':botId/conversations')
  @HttpCode(201)
  @ApiAdminEndpoint({
    operationId: 'recordConversation',
    summary: 'Record a widget conversation',
    description: 'Stores the conversation with its messages and captured lead in one transaction.',
    status: 201,
    type: ConversationEnvelope,
    errors: JSON_BODY_ERRORS,
  })
  @ApiIdParam('tenantId', 'Tenant')
  @ApiIdParam('botId', 'Bot')
  async recordConversation(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('botId', IdOf('Bot')) botId: string,
    @Body() body: RecordConversationDto,
    @CurrentActor() actor: Actor,
  ): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.conversations.recordConversation(tenantId, botId, body, actor)) };
  }
}
