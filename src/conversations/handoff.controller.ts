import { IdOf } from '../common/validation/id.pipe';
import { Body, Controller, HttpCode, Param, Post, Put, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal, RequireScopes, UsersOnly } from '../common/access/access.decorators';
import { Scope } from '../common/access/scopes';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal, AppRequest, UserPrincipal } from '../common/http/request-context';
import { CurrentActor, type Actor } from '../events/actor';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendRecorded } from '../idempotency/idempotent-response';
import { ApiNoBody, ApiIdParam, ApiUserEndpoint, ApiV1Endpoint, headerRef, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { ConversationEnvelope, MessageEnvelope, toConversationResponse } from './conversation.mapper';
import { AgentMessageDto, AssigneeDto } from './dto/handoff.dto';
import { HandoffService } from './handoff.service';

/** Human handoff (API_DECISIONS part 3): a person takes a conversation over from the bot. */
@Controller('api/v1/conversations')
@ApiTags('Conversations')
export class HandoffController {
  constructor(private readonly handoff: HandoffService) {}

  @Post(':id/handoff')
  @HttpCode(200)
  @ApiV1Endpoint({
    operationId: 'handOffConversation',
    summary: 'Take the conversation over from the bot',
    description:
      'Status `handed_off`: the bot stops replying (a visitor’s message is stored with `reply: null`) until the conversation is released. Already handed off: 200, unchanged. Sends `conversation.handed_off`.',
    type: ConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONVERSATION_ENDED, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.ConversationsWrite)
  @ApiIdParam('id', 'Conversation')
  @ApiNoBody()
  async handOff(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.handoff.handOff(tenant.id, id)) };
  }

  @Post(':id/messages')
  @HttpCode(201)
  @ApiV1Endpoint({
    operationId: 'postAgentMessage',
    summary: 'Answer the visitor as a person (role `agent`)',
    description:
      'An `active` conversation is handed off first. The visitor’s widget shows the message at once (its live stream) and `waitingSince` clears. ' +
      'Agent messages never count against the plan’s monthly message limit. With an `Idempotency-Key`, a retry within 24 hours stores nothing and gets the first answer again ' +
      '(`Idempotent-Replayed: true`). Sends `message.created` (and `conversation.handed_off` when it handed the conversation off).',
    status: 201,
    type: MessageEnvelope,
    headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONVERSATION_ENDED, ...JSON_BODY_ERRORS, ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE],
  })
  @RequireScopes(Scope.ConversationsWrite)
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'A unique key per message, so that the request can be retried safely. Scoped to the tenant, kept 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  })
  @ApiIdParam('id', 'Conversation')
  async postMessage(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Body() body: AgentMessageDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Req() request: AppRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<MessageEnvelope> {
    // A signed-in user signs with their own name unless they chose another; a key's message has none.
    const authorName = body.authorName ?? request.session?.user.name ?? null;
    return sendRecorded(response, await this.handoff.postAgentMessage(tenant.id, id, { content: body.content, authorName }, idempotencyKey));
  }

  @Post(':id/release')
  @HttpCode(200)
  @ApiV1Endpoint({
    operationId: 'releaseConversation',
    summary: 'Give the conversation back to the bot',
    description:
      'Status `active`: the bot answers again; the assignee and `waitingSince` clear. Already active: 200, unchanged. Sends `conversation.released`.',
    type: ConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.CONVERSATION_ENDED, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.ConversationsWrite)
  @ApiIdParam('id', 'Conversation')
  @ApiNoBody()
  async release(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.handoff.release(tenant.id, id)) };
  }

  @Post(':id/end')
  @HttpCode(200)
  @ApiV1Endpoint({
    operationId: 'endConversation',
    summary: 'End the conversation',
    description: 'Status `ended` (already ended: 200, unchanged). Sends `conversation.ended`.',
    type: ConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.ConversationsWrite)
  @ApiIdParam('id', 'Conversation')
  @ApiNoBody()
  async end(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Conversation')) id: string): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.handoff.end(tenant.id, id)) };
  }

  @Put(':id/assignee')
  @ApiUserEndpoint({
    operationId: 'assignConversation',
    summary: 'Give the conversation to a member, or to nobody',
    description:
      '`userId`: a member whose role may answer conversations (400 otherwise), or null. Only the user who holds the conversation changes its assignee without ' +
      '`force: true`; anyone else gets 409 `ALREADY_ASSIGNED` (of two agents claiming it at once, one wins). Sends `conversation.assigned` when the assignee changed.',
    type: ConversationEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.ALREADY_ASSIGNED, ...JSON_BODY_ERRORS],
  })
  @UsersOnly('member', Scope.ConversationsWrite)
  @ApiIdParam('id', 'Conversation')
  async assign(
    @Principal() principal: UserPrincipal,
    @Param('id', IdOf('Conversation')) id: string,
    @Body() body: AssigneeDto,
    @CurrentActor() actor: Actor,
  ): Promise<ConversationEnvelope> {
    return { conversation: toConversationResponse(await this.handoff.assign(principal.tenant.id, id, body, { ...actor, userId: principal.user.id })) };
  }
}
