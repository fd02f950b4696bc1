import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { ApiPrincipal, AppRequest } from '../../common/http/request-context';
import { isUuid } from '../../common/validation/uuid';
import { ConversationsRepository } from '../conversations.repository';
import { ConversationsService } from '../conversations.service';
import { ConversationEventStreams, type StreamAudience } from './conversation-event-streams';

/**
 * Open streams one user (whatever the tenant) or one API key may hold at once on an instance;
 * beyond, 429. An inbox follows one conversation at a time, so ten covers a person's tabs; a
 * helpdesk that follows every conversation subscribes a webhook instead.
 */
export const MAX_STREAMS_PER_CALLER = 10;

/** Messages a reconnecting stream replays at most; the transcript's pages hold the rest. */
const REPLAY_LIMIT = 100;

/**
 * The live stream of a conversation for the tenant's people (the inbox) and keys: every message,
 * the visitor's included, and every change of state (ConversationEventStreams).
 */
@Injectable()
export class TenantEventStream {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly repository: ConversationsRepository,
    private readonly streams: ConversationEventStreams,
  ) {}

  async serve(principal: ApiPrincipal, conversationId: string, request: AppRequest, response: Response): Promise<void> {
    const tenantId = principal.tenant.id;
    const conversation = await this.conversations.getConversation(tenantId, conversationId);
    const audience: StreamAudience = {
      holder: principal.kind === 'user' ? `user:${principal.user.id}` : `key:${principal.apiKey.id}`,
      maxStreams: MAX_STREAMS_PER_CALLER,
      limitLabel: principal.kind === 'user' ? 'per user' : 'per API key',
      shows: () => true,
      messagesAfter: async (afterId) =>
        (isUuid(afterId) ? await this.repository.messagesAfter(tenantId, conversation.id, afterId, REPLAY_LIMIT) : null) ?? undefined,
    };
    await this.streams.serve(audience, conversation, request, response);
  }
}
