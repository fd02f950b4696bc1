import { Controller, Delete, Get, HttpCode, Param, Query, Req, Res } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { type Actor, CurrentActor } from '../events/actor';
import type { ApiPrincipal, AppRequest } from '../common/http/request-context';
import { ApiIdParam, ApiV1Endpoint, ApiLastEventIdHeader } from '../openapi/openapi.decorators';
import { MAX_PAGE_SIZE, toPage } from '../common/paging/pagination';
import { Scope } from '../common/access/scopes';
import { ConversationEnvelope, ConversationListResponse, MessageListResponse, toConversationResponse, toMessageResponse } from './conversation.mapper';
import { ConversationsService } from './conversations.service';
import { ListConversationsQueryDto } from './dto/list-conversations.query';
import { ListMessagesQueryDto, MESSAGES_DEFAULT_LIMIT } from './dto/list-messages.query';
import { IdOf } from '../common/validation/id.pipe';
import { MAX_STREAMS_PER_CALLER, TenantEventStream } from './live/tenant-event-stream';
import { LIVE_STREAM_LIMITS_DESCRIPTION } from './live/conversation-event-streams';

@Controller('api/v1/conversations')
@ApiTags('Conversations')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly streams: TenantEventStream,
  ) {}

  @Get()
  @ApiV1Endpoint({
    operationId: 'listConversations',
    summary: 'List conversations, newest first',
    type: ConversationListResponse,
  })
  @RequireScopes(Scope.ConversationsRead)
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListConversationsQueryDto): Promise<ConversationListResponse> {
    const { conversations, pagination } = await this.conversations.listConversations(tenant.id, query, toPage(query));
    return { conversations: conversations.map(toConversationResponse), pagination };
  }

  @Get(':id')
  @ApiV1Endpoint({
    operationId: 'getConversation',
    summary: 'Get a conversation',
    type: ConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.ConversationsRead)
  @ApiIdParam('id', 'Conversation')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.conversations.getConversation(tenant.id, id)) };
  }

  @Get(':id/messages')
  @ApiV1Endpoint({
    operationId: 'listMessages',
    summary: 'List the messages of a conversation, oldest first',
    type: MessageListResponse,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.ConversationsRead)
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

  @Get(':id/events')
  @ApiV1Endpoint({
    operationId: 'streamConversation',
    summary: "The conversation's live events (server-sent events), for an inbox",
    description:
      'Events: `conversation` (the conversation: first on connect, then at every change of status, assignee or wait) and `message` (every message as it is stored: ' +
      'the visitor’s, the bot’s and agents’, `id:` the message id). Send `Last-Event-ID` to get the messages after that one first (up to 100). ' +
      `A comment line comes every 25 s. At most ${MAX_STREAMS_PER_CALLER} streams per user or per key are open at once on an instance (429 beyond). ` +
      `${LIVE_STREAM_LIMITS_DESCRIPTION} ` +
      'Browsers: read it with `fetch`, which can send `X-Tenant-Id` (EventSource cannot). To follow every conversation, subscribe a webhook instead.',
    produces: 'text/event-stream',
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.ConversationsRead)
  @ApiIdParam('id', 'Conversation')
  @ApiLastEventIdHeader()
  async events(
    @Principal() principal: ApiPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Req() request: AppRequest,
    @Res() response: Response,
  ): Promise<void> {
    await this.streams.serve(principal, id, request, response);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiV1Endpoint({
    operationId: 'deleteConversation',
    summary: 'Delete a conversation and its messages',
    description:
      "The conversation and its messages are deleted for good; the bot's counters, lists and analytics follow. Its lead stays, with `conversationId` null. A `conversation.deleted` event carries its `id` only.",
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.ConversationsWrite)
  @ApiIdParam('id', 'Conversation')
  async delete(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.conversations.deleteConversation(tenant.id, id, actor);
  }
}
