import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { Scope } from '../common/access/scopes';
import { ROLE_SCOPES } from '../accounts/roles';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { IdempotencyService } from '../idempotency/idempotency.service';
import type { IdempotentResponse } from '../idempotency/idempotent-response';
import { MessageResponse, toConversationResponse, toMessageResponse } from './conversation.mapper';
import { ConversationChange, ConversationRow, ConversationsRepository } from './conversations.repository';
import { ConversationFeed, LiveEvent } from './live/conversation-feed';

export interface AgentMessage {
  content: string;
  authorName: string | null;
}

/** A step's result, and what the visitors' streams must hear once it committed. */
interface Step<T> {
  result: T;
  live: LiveEvent[];
}

const ended = () => new AppError(ErrorCode.CONVERSATION_ENDED, 'This conversation has ended.');

/**
 * A person taking a conversation over from the bot (API_DECISIONS part 3, Human handoff):
 * active -> handed_off -> active (released) or ended. Each step locks the conversation's row, so
 * concurrent steps (two agents claiming it, a visitor's message arriving) apply one after the
 * other; each writes its webhook events in its transaction and, once committed, tells the
 * visitor's live streams (ConversationFeed).
 */
@Injectable()
export class HandoffService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly conversations: ConversationsRepository,
    private readonly events: EventRecorder,
    private readonly idempotency: IdempotencyService,
    private readonly feed: ConversationFeed,
  ) {}

  /** Hands the conversation to a person (again: unchanged); `waitingSince` when a visitor asked. */
  handOff(tenantId: string, conversationId: string, waitingSince: Date | null = null): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, tx) => {
      if (conversation.status === 'ended') throw ended();
      if (conversation.status === 'handed_off') return { result: conversation, live: [] };
      const handedOff = await this.handOffIn(tx, tenantId, conversation, new Date(), waitingSince);
      return { result: handedOff, live: [conversationEvent(handedOff)] };
    });
  }

  /**
   * An agent's message: an active conversation is handed off first; nobody waits afterwards. It is
   * never counted against the plan's messagesLimit (only the bot's replies are). With an
   * Idempotency-Key, a retry stores nothing and gets the first answer again.
   */
  async postAgentMessage(
    tenantId: string,
    conversationId: string,
    message: AgentMessage,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResponse<{ message: MessageResponse }>> {
    const live: LiveEvent[] = [];
    const request = { method: 'POST', path: `/api/v1/conversations/${conversationId}/messages`, body: message };
    const answer = await this.idempotency.run(tenantId, idempotencyKey, request, async (tx) => {
      const conversation = await this.locked(tenantId, conversationId, tx);
      if (conversation.status === 'ended') throw ended();
      const now = new Date();
      if (conversation.status === 'active') live.push(conversationEvent(await this.handOffIn(tx, tenantId, conversation, now, null)));
      const [stored] = await this.conversations.addMessages(
        tenantId,
        conversationId,
        [{ role: 'agent', content: message.content, authorName: message.authorName, createdAt: now }],
        tx,
      );
      const body = { message: toMessageResponse(stored) };
      await this.events.publish(tx, tenantId, { type: 'message.created', object: body.message });
      live.push({ kind: 'message', message: body.message });
      if (conversation.waitingSince) live.push(conversationEvent(await this.change(tx, tenantId, conversationId, { waitingSince: null })));
      return { status: 201, location: null, body };
    });
    if (!answer.replayed) await this.feed.publish(conversationId, ...live);
    return answer;
  }

  /** Gives the conversation back to the bot (already active: unchanged); nobody holds or waits on it then. */
  release(tenantId: string, conversationId: string): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, tx) => {
      if (conversation.status === 'ended') throw ended();
      if (conversation.status === 'active') return { result: conversation, live: [] };
      const released = await this.change(tx, tenantId, conversationId, { status: 'active', assigneeId: null, waitingSince: null });
      await this.events.publish(tx, tenantId, { type: 'conversation.released', object: toConversationResponse(released) });
      return { result: released, live: [conversationEvent(released)] };
    });
  }

  /** Ends the conversation (again: unchanged). */
  end(tenantId: string, conversationId: string): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, tx) => {
      if (conversation.status === 'ended') return { result: conversation, live: [] };
      const endedRow = await this.change(tx, tenantId, conversationId, { status: 'ended', endedAt: new Date(), waitingSince: null });
      await this.events.publish(tx, tenantId, { type: 'conversation.ended', object: toConversationResponse(endedRow) });
      return { result: endedRow, live: [conversationEvent(endedRow)] };
    });
  }

  /**
   * Gives the conversation to a member who may answer conversations, or to nobody. Only its holder
   * changes a held conversation without `force` (409 ALREADY_ASSIGNED): of two agents claiming it
   * at once, the second sees the first's claim.
   */
  assign(
    tenantId: string,
    conversationId: string,
    assignee: { userId: string | null; force?: boolean },
    actor: Actor & { userId: string },
  ): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, tx) => {
      if (assignee.userId !== null) {
        const role = await this.conversations.memberRole(tenantId, assignee.userId, tx);
        if (!role || !ROLE_SCOPES[role].includes(Scope.ConversationsWrite))
          throw ValidationError.field('userId', 'must be a member of the tenant whose role may answer conversations');
      }
      const holder = conversation.assigneeId;
      if (holder === assignee.userId) return { result: conversation, live: [] };
      if (holder !== null && holder !== actor.userId && !assignee.force) {
        throw new AppError(ErrorCode.ALREADY_ASSIGNED, 'Another user holds this conversation; send "force": true to take it over.');
      }
      const assigned = await this.change(tx, tenantId, conversationId, { assigneeId: assignee.userId });
      await this.events.publish(tx, tenantId, { type: 'conversation.assigned', object: toConversationResponse(assigned) });
      await this.events.record(tx, tenantId, actor, {
        action: 'conversation.assigned',
        targetId: conversationId,
        data: { assigneeId: assignee.userId, previousAssigneeId: holder, forced: holder !== null && holder !== actor.userId },
      });
      return { result: assigned, live: [conversationEvent(assigned)] };
    });
  }

  /**
   * Hands a conversation off inside the caller's transaction (the widget's fallback does it with
   * the visitor's question) and queues conversation.handed_off. The caller holds the row's lock.
   */
  async handOffIn(tx: PrismaTransaction, tenantId: string, conversation: ConversationRow, now: Date, waitingSince: Date | null): Promise<ConversationRow> {
    const handedOff = await this.change(tx, tenantId, conversation.id, {
      status: 'handed_off',
      handedOffAt: now,
      waitingSince: waitingSince ?? conversation.waitingSince,
    });
    await this.events.publish(tx, tenantId, { type: 'conversation.handed_off', object: toConversationResponse(handedOff) });
    return handedOff;
  }

  private async step<T>(
    tenantId: string,
    conversationId: string,
    work: (conversation: ConversationRow, tx: PrismaTransaction) => Promise<Step<T>>,
  ): Promise<T> {
    const { result, live } = await this.prisma.$transaction(async (tx) => work(await this.locked(tenantId, conversationId, tx), tx));
    await this.feed.publish(conversationId, ...live);
    return result;
  }

  private async locked(tenantId: string, conversationId: string, tx: PrismaTransaction): Promise<ConversationRow> {
    const conversation = await this.conversations.lock(tenantId, conversationId, tx);
    if (!conversation) throw new NotFoundError('Conversation');
    return conversation;
  }

  private async change(tx: PrismaTransaction, tenantId: string, conversationId: string, change: ConversationChange): Promise<ConversationRow> {
    await this.conversations.update(tenantId, conversationId, change, tx);
    return (await this.conversations.findById(tenantId, conversationId, tx))!;
  }
}

const conversationEvent = (conversation: ConversationRow): LiveEvent => ({ kind: 'conversation', conversation: toConversationResponse(conversation) });
