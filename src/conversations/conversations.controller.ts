import { Controller, Get, Param, Query } from '@nestjs/common';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { NoQueryDto, Pagination, toPage } from '../common/paging/pagination';
import { Scope } from '../tenancy/api-keys/scopes';
import { ConversationResponse, MessageResponse, toConversationResponse, toMessageResponse } from './conversation.mapper';
import { ConversationsService } from './conversations.service';
import { ListConversationsQueryDto } from './dto/list-conversations.query';
import { ListMessagesQueryDto, MESSAGES_DEFAULT_LIMIT } from './dto/list-messages.query';

@Controller('api/v1/conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @RequireScopes(Scope.ConversationsRead)
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListConversationsQueryDto): Promise<{ conversations: ConversationResponse[]; pagination: Pagination }> {
    const { conversations, pagination } = await this.conversations.listConversations(tenant.id, query, toPage(query));
    return { conversations: conversations.map(toConversationResponse), pagination };
  }

  @Get(':id')
  @RequireScopes(Scope.ConversationsRead)
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<{ conversation: ConversationResponse }> {
    return { conversation: toConversationResponse(await this.conversations.getConversation(tenant.id, id)) };
  }

  @Get(':id/messages')
  @RequireScopes(Scope.ConversationsRead)
  async messages(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() query: ListMessagesQueryDto): Promise<{ messages: MessageResponse[]; pagination: Pagination }> {
    const { messages, pagination } = await this.conversations.listMessages(tenant.id, id, toPage(query, MESSAGES_DEFAULT_LIMIT));
    return { messages: messages.map(toMessageResponse), pagination };
  }
}
