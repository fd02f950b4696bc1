import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { AppRequest, VisitorPrincipal } from '../common/http/request-context';
import { ConversationEventStreams } from '../conversations/live/conversation-event-streams';
import { WidgetCaller, WidgetService } from './widget.service';

/** Open streams one visitor may hold at once (two tabs); beyond, 429. */
export const MAX_STREAMS_PER_VISITOR = 2;

/**
 * The widget's live stream of a visitor's own conversation (ConversationEventStreams): agent and
 * assistant messages (the visitor's own are in the widget already) and its state.
 */
@Injectable()
export class VisitorEventStream {
  constructor(
    private readonly widget: WidgetService,
    private readonly streams: ConversationEventStreams,
  ) {}

  async serve(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string, request: AppRequest, response: Response): Promise<void> {
    const conversation = await this.widget.streamedConversation(caller, visitor, conversationId);
    const audience = {
      holder: `visitor:${caller.tenantId}:${visitor.visitorId}`,
      maxStreams: MAX_STREAMS_PER_VISITOR,
      limitLabel: 'per visitor',
      shows: (message: { role: string }) => message.role !== 'user',
      messagesAfter: (afterId: string) => this.widget.missedMessages(caller, conversation.id, afterId),
    };
    await this.streams.serve(audience, conversation, request, response);
  }
}
