import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { Principal } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { type Actor, CurrentActor } from '../events/actor';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiIdParam, ApiV1Endpoint } from '../openapi/openapi.decorators';
import { MAX_PAGE_SIZE, toPage } from '../common/paging/pagination';
import { Scope } from '../common/access/scopes';
import { ConversationEnvelope, ConversationListResponse, MessageListResponse, toConversationResponse, toMessageResponse } from './conversation.mapper';
import { ConversationsService } from './conversations.service';
import { ListConversationsQueryDto } from './dto/list-conversations.query';
import { ListMessagesQueryDto, MESSAGES_DEFAULT_LIMIT } from './dto/list-messages.query';
import { IdOf } from '../common/validation/id.pipe';

@Controller('api/v1/conversations')
@ApiTags('Conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @ApiV1Endpoint({
    operationId: 'listConversations',
    summary: 'List conversations, newest first',
    scopes: [Scope.ConversationsRead],
    type: ConversationListResponse,
  })
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListConversationsQueryDto): Promise<ConversationListResponse> {
    const { conversations, pagination } = await this.conversations.listConversations(tenant.id, query, toPage(query));
    return { conversations: conversations.map(toConversationResponse), pagination };
  }

  @Get(':id')
  @ApiV1Endpoint({
    operationId: 'getConversation',
    summary: 'Get a conversation',
    scopes: [Scope.ConversationsRead],
    type: ConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND],
  })
  @ApiIdParam('id', 'Conversation')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.conversations.getConversation(tenant.id, id)) };
  }

  @Get(':id/messages')
  @ApiV1Endpoint({
    operationId: 'listMessages',
    summary: 'List the messages of a conversation, oldest first',
    scopes: [Scope.ConversationsRead],
    type: MessageListResponse,
    errors: [ErrorCode.NOT_FOUND],
  })
  @ApiIdParam('id', 'Conversation')
  @ApiQuery({
    name: 'limit',
    required: false,
    description: 'Page size.',
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: MESSAGES_DEFAULT_LIMIT },
  })
  async messages(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Query() query: ListMessagesQueryDto,
  ): Promise<MessageListResponse> {
    const { messages, pagination } = await this.conversations.listMessages(tenant.id, id, toPage(query, MESSAGES_DEFAULT_LIMIT));
    return { messages: messages.map(toMessageResponse), pagination };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiV1Endpoint({
    operationId: 'deleteConversation',
    summary: 'Delete a conversation and its messages',
    description:
      "The conversation and its messages are deleted for good; the bot's counters, lists and analytics follow. Its lead stays, with `conversationId` null. A `conversation.deleted` event carries its `id` only.",
    scopes: [Scope.ConversationsWrite],
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @ApiIdParam('id', 'Conversation')
  async delete(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.conversations.deleteConversation(tenant.id, id, actor);
  }
}
