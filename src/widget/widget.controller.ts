import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiProduces, ApiTags } from '@nestjs/swagger';
import { MAX_STREAMS_PER_VISITOR, VisitorEventStream } from './visitor-event-stream';
import { LIVE_STREAM_LIMITS_DESCRIPTION } from '../conversations/live/conversation-event-streams';
import type { Response } from 'express';
import { Principal, Visitor, VisitorOnly, WidgetOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { GlobalExceptionFilter } from '../common/errors/global-exception.filter';
import type { ApiPrincipal, AppRequest, VisitorPrincipal } from '../common/http/request-context';
import { toConversationResponse, toMessageResponse } from '../conversations/conversation.mapper';
import { toLeadResponse } from '../leads/lead.mapper';
import { ApiIdParam, ApiNoBody, ApiWidgetEndpoint, JSON_BODY_ERRORS, ApiLastEventIdHeader } from '../openapi/openapi.decorators';
import { ClientIp } from '../rate-limit/client-ip';
import { SendMessageDto } from '../conversations/dto/send-message.dto';
import { CreateSessionDto, MessagesAfterQueryDto, WidgetLeadDto } from './dto/widget.dto';
import { WidgetConversationStart, WidgetExchange } from '../conversations/turn/turn.mapper';
import { sendExchange } from '../conversations/turn/reply-stream';
import {
  toWidgetBot,
  WidgetBotEnvelope,
  WidgetConversationEnvelope,
  WidgetConversations,
  WidgetLeadEnvelope,
  WidgetMessages,
  WidgetSession,
} from './widget.mapper';
import { WidgetCaller, WidgetService } from './widget.service';
import { IdOf } from '../common/validation/id.pipe';

const callerOf = ({ tenant }: ApiPrincipal, clientIp: string): WidgetCaller => ({ tenantId: tenant.id, plan: tenant.plan, clientIp });

@Controller('api/v1/widget')
@ApiTags('Widget')
export class WidgetController {
  constructor(
    private readonly widget: WidgetService,
    private readonly errors: GlobalExceptionFilter,
    private readonly streams: VisitorEventStream,
  ) {}

  @Get('bots/:botId')
  @ApiWidgetEndpoint({
    operationId: 'getWidgetBot',
    summary: 'The bot as the widget shows it',
    type: WidgetBotEnvelope,
    errors: [ErrorCode.NOT_FOUND],
  })
  @WidgetOnly()
  @ApiIdParam('botId', 'Bot')
  async bot(@Principal() principal: ApiPrincipal, @ClientIp() ip: string, @Param('botId', IdOf('Bot')) botId: string): Promise<WidgetBotEnvelope> {
    const { bot, settings } = await this.widget.botConfig(callerOf(principal, ip), botId);
    return { bot: toWidgetBot(bot, settings) };
  }

  @Post('sessions')
  @HttpCode(201)
  @ApiWidgetEndpoint({
    operationId: 'createWidgetSession',
    summary: 'Start a visitor session',
    description:
      'The service mints the visitor id; send the visitor’s earlier `visitorToken` (even expired, up to 30 days) to stay the same visitor. ' +
      'With a valid `identityToken` the visitor is the tenant’s user it names: the same visitor id on every device, whatever `visitorToken` says; ' +
      'with `identityVerification.required`, a session without one is 401 `IDENTITY_REQUIRED`. At most 10 new sessions a minute per client address.',
    status: 201,
    type: WidgetSession,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.INVALID_IDENTITY_TOKEN, ErrorCode.IDENTITY_REQUIRED, ...JSON_BODY_ERRORS],
  })
  @WidgetOnly()
  async session(@Principal() principal: ApiPrincipal, @ClientIp() ip: string, @Body() body: CreateSessionDto): Promise<WidgetSession> {
    const session = await this.widget.startSession(callerOf(principal, ip), body.botId, {
      previousToken: body.visitorToken,
      identityToken: body.identityToken,
    });
    return { visitorToken: session.visitorToken, visitorId: session.visitorId, expiresAt: session.expiresAt.toISOString() };
  }

  @Post('conversations')
  @HttpCode(201)
  @ApiWidgetEndpoint({
    operationId: 'startWidgetConversation',
    summary: "Start a conversation with the session's bot",
    status: 201,
    type: WidgetConversationStart,
    errors: [...JSON_BODY_ERRORS],
  })
  @VisitorOnly()
  @ApiNoBody()
  async startConversation(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
  ): Promise<WidgetConversationStart> {
    const { conversation, messages } = await this.widget.startConversation(callerOf(principal, ip), visitor);
    return { conversation: toConversationResponse(conversation), messages: messages.map(toMessageResponse) };
  }

  @Get('conversations')
  @ApiWidgetEndpoint({
    operationId: 'listWidgetConversations',
    summary: "The visitor's conversations with the session's bot",
    description:
      'Newest first, at most 20, ended ones included. A visitor known by an identity token is the same visitor on every device: ' +
      'a second device finds their conversations here (the widget resumes the newest one not ended).',
    type: WidgetConversations,
    // The token's bot deleted since.
    errors: [ErrorCode.NOT_FOUND],
  })
  @VisitorOnly()
  async conversations(@Principal() principal: ApiPrincipal, @ClientIp() ip: string, @Visitor() visitor: VisitorPrincipal): Promise<WidgetConversations> {
    return { conversations: (await this.widget.conversationsOf(callerOf(principal, ip), visitor)).map(toConversationResponse) };
  }

  @Get('conversations/:id/messages')
  @ApiWidgetEndpoint({
    operationId: 'listWidgetMessages',
    summary: "The visitor's conversation's messages",
    type: WidgetMessages,
    errors: [ErrorCode.NOT_FOUND],
  })
  @VisitorOnly()
  @ApiIdParam('id', 'Conversation')
  async messages(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Query() query: MessagesAfterQueryDto,
  ): Promise<WidgetMessages> {
    return { messages: (await this.widget.messages(callerOf(principal, ip), visitor, id, query.after)).map(toMessageResponse) };
  }

  @Post('conversations/:id/messages')
  @HttpCode(201)
  @ApiWidgetEndpoint({
    operationId: 'sendWidgetMessage',
    summary: "Send the visitor's message and get the bot's reply",
    description:
      'The reply comes from the bot’s knowledge documents (or its fallback message). With `Accept: text/event-stream` it is streamed: `delta` events ' +
      '(`{ "text": "..." }`, in order; together they are the reply), then one `done` event with the answer of the JSON form; a failure after the first ' +
      'event is an `error` event with the error envelope. Each reply counts against the plan’s monthly message limit; at the limit nothing is stored.',
    status: 201,
    type: WidgetExchange,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONVERSATION_ENDED, ErrorCode.MESSAGE_LIMIT_REACHED, ...JSON_BODY_ERRORS],
    // (While a person has the conversation, `reply` is null and nothing counts against the limit.)
  })
  @VisitorOnly()
  @ApiProduces('application/json', 'text/event-stream')
  @ApiIdParam('id', 'Conversation')
  async send(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Body() body: SendMessageDto,
    @Req() request: AppRequest,
    @Res() response: Response,
  ): Promise<void> {
    const caller = callerOf(principal, ip);
    await sendExchange(request, response, this.errors, (onDelta) => this.widget.exchange(caller, visitor, id, body.content, onDelta));
  }

  @Post('conversations/:id/handoff')
  @HttpCode(200)
  @ApiWidgetEndpoint({
    operationId: 'handOffWidgetConversation',
    summary: 'Ask for a person',
    description:
      'The conversation is handed to the tenant’s people (status `handed_off`, `waitingSince` set): the bot stops replying until they release it. Already handed off: 200, unchanged. The bot’s `handoff.enabled` setting must be on (409 `HANDOFF_DISABLED`).',
    type: WidgetConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.HANDOFF_DISABLED, ErrorCode.CONVERSATION_ENDED, ...JSON_BODY_ERRORS],
  })
  @VisitorOnly()
  @ApiIdParam('id', 'Conversation')
  @ApiNoBody()
  async handOff(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
  ): Promise<WidgetConversationEnvelope> {
    return { conversation: toConversationResponse(await this.widget.handOff(callerOf(principal, ip), visitor, id)) };
  }

  @Get('conversations/:id/events')
  @ApiWidgetEndpoint({
    operationId: 'streamWidgetConversation',
    summary: "The conversation's live events (server-sent events)",
    description:
      'Events: `conversation` (the conversation: first on connect, then at every change of state) and `message` (each agent and assistant message as it is stored, ' +
      '`id:` the message id; agent messages carry `authorName`). Send `Last-Event-ID` to get the messages after that one first. A comment line comes every 25 s. ' +
      `At most ${MAX_STREAMS_PER_VISITOR} streams per visitor are open at once (429 beyond). ${LIVE_STREAM_LIMITS_DESCRIPTION} ` +
      'Browsers: read it with `fetch` (the visitor token goes in `X-Visitor-Token`, never in the URL). ' +
      'Without a stream, poll `GET .../messages?after=`.',
    produces: 'text/event-stream',
    errors: [ErrorCode.NOT_FOUND],
  })
  @VisitorOnly()
  @ApiIdParam('id', 'Conversation')
  @ApiLastEventIdHeader()
  async events(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Req() request: AppRequest,
    @Res() response: Response,
  ): Promise<void> {
    await this.streams.serve(callerOf(principal, ip), visitor, id, request, response);
  }

  @Post('conversations/:id/lead')
  @HttpCode(201)
  @ApiWidgetEndpoint({
    operationId: 'captureWidgetLead',
    summary: 'Send the lead form',
    description:
      'The lead gets source `widget`, the bot and this conversation; the conversation gets the lead. `phone` and `company` are required when the tenant’s lead capture says so.',
    status: 201,
    type: WidgetLeadEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.LEAD_CAPTURE_DISABLED, ErrorCode.LEAD_ALREADY_CAPTURED, ...JSON_BODY_ERRORS],
  })
  @VisitorOnly()
  @ApiIdParam('id', 'Conversation')
  async lead(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Body() body: WidgetLeadDto,
  ): Promise<WidgetLeadEnvelope> {
    return { lead: toLeadResponse(await this.widget.captureLead(callerOf(principal, ip), visitor, id, body)) };
  }

  @Post('conversations/:id/end')
  @HttpCode(200)
  @ApiWidgetEndpoint({
    operationId: 'endWidgetConversation',
    summary: 'End the conversation',
    type: WidgetConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @VisitorOnly()
  @ApiIdParam('id', 'Conversation')
  @ApiNoBody()
  async end(
    @Principal() principal: ApiPrincipal,
    @ClientIp() ip: string,
    @Visitor() visitor: VisitorPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
  ): Promise<WidgetConversationEnvelope> {
    return { conversation: toConversationResponse(await this.widget.end(callerOf(principal, ip), visitor, id)) };
  }
}
