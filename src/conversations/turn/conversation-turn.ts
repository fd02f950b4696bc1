import { Injectable } from '@nestjs/common';
import type { ConversationChannel } from '../../generated/prisma/enums';
import { AnswerService } from '../../answering/answer.service';
import { Changes } from '../../events/changes';
import { MessageQuota } from '../../usage/message-quota';
import { toConversationResponse, toMessageResponse } from '../conversation.mapper';
import { ConversationRow, ConversationsRepository, MessageRow } from '../conversations.repository';
import { conversationEnded, type Exchange, type TurnRequest } from './turn';
import { TurnStore } from './turn-store';
import type { VisitorIdentity } from '../visitors/visitors.repository';

/**
 * One conversation turn, whatever the channel (STYLE.md, The conversation core and channels): the
 * visitor's message, the quota (one entry: MessageQuota.allow), the answer, storing both messages,
 * and their events (Changes). A channel resolves its caller, calls this, and shapes the result.
 * While a person has the conversation the bot stays silent: the message alone is stored, counted
 * against nothing, and waits for an agent (seen under the lock, so a handoff during the answer
 * wins). With the bot's handoff.onFallback, an unanswered question hands off after the fallback.
 */
@Injectable()
export class ConversationTurn {
  constructor(
    private readonly answers: AnswerService,
    private readonly quota: MessageQuota,
    private readonly store: TurnStore,
    private readonly changes: Changes,
    private readonly conversations: ConversationsRepository,
  ) {}

  /**
   * A new conversation of the visitor with the bot, opened by the bot's welcome message. An
   * identified visitor's profile (`visitor`) is copied onto it, so every read shows who it is.
   */
  open(
    tenantId: string,
    bot: { id: string; welcomeMessage: string | null },
    opening: { channel: ConversationChannel; visitorId: string; visitor?: VisitorIdentity },
  ): Promise<{ conversation: ConversationRow; messages: MessageRow[] }> {
    return this.changes.transaction(tenantId, async (changes) => {
      const now = new Date();
      const { visitor } = opening;
      const { id } = await this.conversations.create(
        tenantId,
        {
          botId: bot.id,
          status: 'active',
          channel: opening.channel,
          visitorId: opening.visitorId,
          ...(visitor && { visitorExternalId: visitor.externalId, visitorEmail: visitor.email ?? null, visitorName: visitor.name ?? null }),
          createdAt: now,
          endedAt: null,
        },
        changes.tx,
      );
      const messages = bot.welcomeMessage
        ? await this.conversations.addMessages(tenantId, id, [{ role: 'assistant', content: bot.welcomeMessage, createdAt: now }], changes.tx)
        : [];
      const conversation = (await this.conversations.findById(tenantId, id, changes.tx))!;
      await changes.emit(
        { type: 'conversation.started', object: toConversationResponse(conversation) },
        ...messages.map((message) => ({ type: 'message.created' as const, object: toMessageResponse(message) })),
      );
      return { conversation, messages };
    });
  }

  /**
   * The visitor's message and the bot's reply. The checks and the answer come first (the answer
   * may take seconds, from an LLM); then the store locks the conversation, counts the reply
   * against the quota, exactly, and stores both messages with their events. A reply over a limit
   * is refused there, and nothing is stored.
   */
  async take(request: TurnRequest): Promise<Exchange> {
    const { tenantId, bot, conversation, content } = request;
    if (conversation.status === 'ended') throw conversationEnded();
    if (conversation.status === 'handed_off') {
      const waiting = await this.store.forAgentIfHeld(tenantId, conversation.id, content);
      if (waiting) return { message: waiting.message, reply: null, answer: null };
    }
    await request.beforeReply?.();
    const allowance = await this.quota.allow(tenantId, request.limits);
    const answer = await this.answers.answer({ tenantId, bot, question: content }, request.onDelta);
    const shown = { ...answer, sources: bot.showSources ? answer.sources : [] };
    const handsOff = answer.unanswered && bot.handoffEnabled && bot.handoffOnFallback;
    // A reply that hands the conversation off needs a transaction; the others try one statement first.
    const stored =
      (!handsOff && (await this.store.replyInOneStatement(tenantId, conversation.id, content, answer, allowance))) ||
      (await this.store.replyInTransaction(tenantId, conversation.id, content, answer, allowance, handsOff));
    return stored.reply ? { message: stored.message, reply: stored.reply, answer: shown } : { message: stored.message, reply: null, answer: null };
  }
}
