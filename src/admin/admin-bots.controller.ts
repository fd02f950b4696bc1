import { Body, Controller, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { BotResponse, KnowledgeDocumentResponse, toBotResponse, toKnowledgeDocumentResponse } from '../bots/bot.mapper';
import { BotsService } from '../bots/bots.service';
import { AdminOnly } from '../common/access/access.decorators';
import { ConversationResponse, toConversationResponse } from '../conversations/conversation.mapper';
import { ConversationsService } from '../conversations/conversations.service';
import { CreateBotDto, CreateDocumentDto, UpdateBotDto } from './dto/bot.dto';
import { RecordConversationDto } from './dto/conversation.dto';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants/:tenantId/bots')
@AdminOnly()
export class AdminBotsController {
  constructor(
    private readonly bots: BotsService,
    private readonly conversations: ConversationsService,
  ) {}

  @Post()
  @HttpCode(201)
  async create(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: CreateBotDto): Promise<{ bot: BotResponse }> {
    return { bot: toBotResponse(await this.bots.createBot(tenantId, body)) };
  }

  @Patch(':botId')
  async update(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('botId') botId: string, @Body() body: UpdateBotDto): Promise<{ bot: BotResponse }> {
    return { bot: toBotResponse(await this.bots.updateBot(tenantId, botId, body)) };
  }

  @Post(':botId/documents')
  @HttpCode(201)
  async addDocument(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('botId') botId: string, @Body() body: CreateDocumentDto): Promise<{ document: KnowledgeDocumentResponse }> {
    return { document: toKnowledgeDocumentResponse(await this.bots.addDocument(tenantId, botId, body)) };
  }

  @Post(':botId/conversations')
  @HttpCode(201)
  async recordConversation(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('botId') botId: string, @Body() body: RecordConversationDto): Promise<{ conversation: ConversationResponse }> {
    return { conversation: toConversationResponse(await this.conversations.recordConversation(tenantId, botId, body)) };
  }
}
