import { Body, Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal, RequireScopes } from '../../common/access/access.decorators';
import { Scope } from '../../common/access/scopes';
import { ErrorCode } from '../../common/errors/error-codes';
import { GlobalExceptionFilter } from '../../common/errors/global-exception.filter';
import type { ApiPrincipal, AppRequest } from '../../common/http/request-context';
import { IdOf } from '../../common/validation/id.pipe';
import { ApiIdParam, ApiV1Endpoint, headerRef, JSON_BODY_ERRORS } from '../../openapi/openapi.decorators';
import { toConversationResponse, toMessageResponse } from '../conversation.mapper';
import { SendMessageDto } from '../dto/send-message.dto';
import { WidgetConversationStart, WidgetExchange } from '../turn/turn.mapper';
import { sendExchange } from '../turn/reply-stream';
import { ApiChannelCaller, ApiChannelService } from './api-channel.service';
import { OpenApiConversationDto } from './dto/api-channel.dto';

const callerOf = ({ tenant }: ApiPrincipal): ApiChannelCaller => ({ tenantId: tenant.id, plan: tenant.plan });

/** The API channel (API_DECISIONS part 4): the tenant's own messenger speaks for its visitors. */
@Controller('api/v1/conversations')
@ApiTags('Conversations')
export class ApiChannelController {
  constructor(
    private readonly channel: ApiChannelService,
    private readonly errors: GlobalExceptionFilter,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiV1Endpoint({
    operationId: 'openApiConversation',
    summary: 'Open a conversation of the API channel (your own messenger)',
    description:
      'For a messenger you bridge (WhatsApp, Slack, n8n): a conversation with `channel: "api"`, opened by the bot’s welcome message, as the widget’s. ' +
      'With `externalId` the person is a known visitor: the same visitor id on all their conversations (the widget’s identified ones included), `verified: true`, ' +
      'and `visitor.name` and `visitor.email` kept for them. Without it, a new anonymous visitor. `botId` not one of your bots: 400; an inactive bot: 409 `BOT_INACTIVE`. ' +
      'Sends `conversation.started` and `message.created` for the welcome message.',
    status: 201,
    type: WidgetConversationStart,
    headers: { Location: headerRef('ConversationLocation') },
    errors: [ErrorCode.BOT_INACTIVE, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.ConversationsWrite)
  async open(
    @Principal() principal: ApiPrincipal,
    @Body() body: OpenApiConversationDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WidgetConversationStart> {
    const { conversation, messages } = await this.channel.open(callerOf(principal), body);
    response.location(`/api/v1/conversations/${conversation.id}`);
    return { conversation: toConversationResponse(conversation), messages: messages.map(toMessageResponse) };
  }

  @Post(':id/visitor-messages')
  @HttpCode(201)
  @ApiV1Endpoint({
    operationId: 'sendApiVisitorMessage',
    summary: "Send the person's message and get the bot's reply (API channel)",
    description:
      'The widget’s message, from your messenger: the same answer (the bot’s knowledge, or its fallback message), the same JSON, the same stream with ' +
      '`Accept: text/event-stream` (`delta` events, then one `done` event with the JSON answer; a failure after the first event is an `error` event with the error envelope). ' +
      'Each reply counts against the plan’s monthly message limit; at the limit nothing is stored. While a person has the conversation, `reply` is null and ' +
      'nothing counts: their answer reaches you by the `message.created` webhook and on `GET /api/v1/conversations/{id}/events`. ' +
      'Only conversations of the API channel take these messages: any other id is 404.',
    status: 201,
    type: WidgetExchange,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.BOT_INACTIVE, ErrorCode.CONVERSATION_ENDED, ErrorCode.MESSAGE_LIMIT_REACHED, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.ConversationsWrite)
  @ApiProduces('application/json', 'text/event-stream')
  @ApiIdParam('id', 'Conversation')
  async send(
    @Principal() principal: ApiPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Body() body: SendMessageDto,
    @Req() request: AppRequest,
    @Res() response: Response,
  ): Promise<void> {
    const caller = callerOf(principal);
    await sendExchange(request, response, this.errors, (onDelta) => this.channel.exchange(caller, id, body.content, onDelta));
  }
}
