import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotEnvelope, KnowledgeDocumentEnvelope, toBotResponse, toKnowledgeDocumentResponse } from '../bots/bot.mapper';
import { BotsService } from '../bots/bots.service';
import { AdminOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { ApiAdminEndpoint, ApiIdParam, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { ConversationEnvelope, toConversationResponse } from '../conversations/conversation.mapper';
import { ConversationsService } from '../conversations/conversations.service';
import { CreateBotDto, CreateDocumentDto, UpdateBotDto } from '../bots/dto/bot.dto';
import { RecordConversationDto } from '../conversations/dto/record-conversation.dto';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants/:tenantId/bots')
@AdminOnly()
@ApiTags('Admin')
export class AdminBotsController {
  constructor(
    private readonly bots: BotsService,
    private readonly conversations: ConversationsService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiAdminEndpoint({ operationId: 'createBot', summary: 'Create a bot', description: "Within the plan's bot limit.", status: 201, type: BotEnvelope, errors: [...JSON_BODY_ERRORS, ErrorCode.PLAN_LIMIT_REACHED] })
  @ApiIdParam('tenantId', 'Tenant')
  async create(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: CreateBotDto): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.createBot(tenantId, body)) };
  }

  @Patch(':botId')
  @ApiAdminEndpoint({ operationId: 'updateBot', summary: 'Change a bot’s settings or switch it on or off', type: BotEnvelope, errors: JSON_BODY_ERRORS })
  @ApiIdParam('tenantId', 'Tenant')
  @ApiIdParam('botId', 'Bot')
  async update(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('botId') botId: string, @Body() body: UpdateBotDto): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.updateBot(tenantId, botId, body)) };
  }

  @Post(':botId/documents')
  @HttpCode(201)
  @ApiAdminEndpoint({ operationId: 'addKnowledgeDocument', summary: 'Add a document to a bot’s knowledge base', status: 201, type: KnowledgeDocumentEnvelope, errors: JSON_BODY_ERRORS })
  @ApiIdParam('tenantId', 'Tenant')
  @ApiIdParam('botId', 'Bot')
  async addDocument(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('botId') botId: string, @Body() body: CreateDocumentDto): Promise<KnowledgeDocumentEnvelope> {
    return { document: toKnowledgeDocumentResponse(await this.bots.addDocument(tenantId, botId, body)) };
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
  async recordConversation(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('botId') botId: string, @Body() body: RecordConversationDto): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.conversations.recordConversation(tenantId, botId, body)) };
  }
}
