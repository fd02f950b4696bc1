import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { holdsScopes, Scope } from '../common/access/scopes';
import { ROLE_SCOPES } from '../accounts/roles';
import type { Actor } from '../events/actor';
import { Changes, type TransactionChanges } from '../events/changes';
import { IdempotencyService } from '../idempotency/idempotency.service';
import type { IdempotentResponse } from '../idempotency/idempotent-response';
import { MessageResponse, toConversationResponse, toMessageResponse } from './conversation.mapper';
import { ConversationChange, ConversationRow, ConversationsRepository } from './conversations.repository';

export interface AgentMessage {
  content: string;
  authorName: string | null;
}

const ended = () => new AppError(ErrorCode.CONVERSATION_ENDED, 'This conversation has ended.');

/**
 * A person taking a conversation over from the bot (API_DECISIONS part 3, Human handoff):
 * active -> handed_off -> active (released) or ended. Each step locks the conversation's row, so
 * concurrent steps (two agents claiming it, a visitor's message arriving) apply one after the
 * other; each emits its events once (Changes): webhooks in its transaction, the visitor's and the
 * inbox's live streams once committed.
 */
@Injectable()
export class HandoffService {
  constructor(
    private readonly changes: Changes,
    private readonly conversations: ConversationsRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** Hands the conversation to a person (again: unchanged); `waitingSince` when a visitor asked. */
  handOff(tenantId: string, conversationId: string, waitingSince: Date | null = null): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, changes) => {
      if (conversation.status === 'ended') throw ended();
      if (conversation.status === 'handed_off') return conversation;
      return this.handOffIn(changes, tenantId, conversation, new Date(), waitingSince);
    });
  }

  /**
   * An agent's message: an active conversation is handed off first; nobody waits afterwards. It is
   * never counted against the plan's messagesLimit (only the bot's replies are). With an
   * Idempotency-Key, a retry stores nothing and gets the first answer again.
   */
  postAgentMessage(
    tenantId: string,
    conversationId: string,
    message: AgentMessage,
    idempotencyKey: string | undefined,
  ): Promise<IdempotentResponse<{ message: MessageResponse }>> {
    const request = { method: 'POST', path: `/api/v1/conversations/${conversationId}/messages`, body: message };
    return this.changes.transaction(
      tenantId,
      async (changes) => {
        const conversation = await this.locked(tenantId, conversationId, changes);
        if (conversation.status === 'ended') throw ended();
        const now = new Date();
        if (conversation.status === 'active') await this.handOffIn(changes, tenantId, conversation, now, null);
        const [stored] = await this.conversations.addMessages(
          tenantId,
          conversationId,
          [{ role: 'agent', content: message.content, authorName: message.authorName, createdAt: now }],
          changes.tx,
        );
        const body = { message: toMessageResponse(stored) };
        await changes.emit({ type: 'message.created', object: body.message });
        if (conversation.waitingSince) {
          const answered = await this.change(changes, tenantId, conversationId, { waitingSince: null });
          await changes.emit({ type: 'conversation.waiting_changed', object: toConversationResponse(answered) });
        }
        return { status: 201, location: null, body };
      },
      (work) => this.idempotency.run(tenantId, idempotencyKey, request, work),
    );
  }

  /** Gives the conversation back to the bot (already active: unchanged); nobody holds or waits on it then. */
  release(tenantId: string, conversationId: string): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, changes) => {
      if (conversation.status === 'ended') throw ended();
      if (conversation.status === 'active') return conversation;
      const released = await this.change(changes, tenantId, conversationId, { status: 'active', assigneeId: null, waitingSince: null });
      await changes.emit({ type: 'conversation.released', object: toConversationResponse(released) });
      return released;
    });
  }

  /** Ends the conversation (again: unchanged). */
  end(tenantId: string, conversationId: string): Promise<ConversationRow> {
    return this.step(tenantId, conversationId, async (conversation, changes) => {
      if (conversation.status === 'ended') return conversation;
      const endedRow = await this.change(changes, tenantId, conversationId, { status: 'ended', endedAt: new Date(), waitingSince: null });
      await changes.emit({ type: 'conversation.ended', object: toConversationResponse(endedRow) });
      return endedRow;
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
    return this.step(tenantId, conversationId, async (conversation, changes) => {
      if (assignee.userId !== null) {
        const role = await this.conversations.memberRole(tenantId, assignee.userId, changes.tx);
        if (!role || !holdsScopes(ROLE_SCOPES[role], Scope.ConversationsWrite))
          throw ValidationError.field('userId', 'must be a member of the tenant whose role may answer conversations');
      }
      const holder = conversation.assigneeId;
      if (holder === assignee.userId) return conversation;
      if (holder !== null && holder !== actor.userId && !assignee.force) {
        throw new AppError(ErrorCode.ALREADY_ASSIGNED, 'Another user holds this conversation; send "force": true to take it over.');
      }
      const assigned = await this.change(changes, tenantId, conversationId, { assigneeId: assignee.userId });
      await changes.emit({ type: 'conversation.assigned', object: toConversationResponse(assigned) });
      await changes.audit(actor, {
        action: 'conversation.assigned',
        targetId: conversationId,
        data: { assigneeId: assignee.userId, previousAssigneeId: holder, forced: holder !== null && holder !== actor.userId },
      });
      return assigned;
    });
  }

  /**
   * Hands a conversation off inside the caller's transaction (the turn's fallback does it with
   * the visitor's question) and emits conversation.handed_off. The caller holds the row's lock.
   */
  async handOffIn(
    changes: TransactionChanges,
    tenantId: string,
    conversation: ConversationRow,
    now: Date,
    waitingSince: Date | null,
  ): Promise<ConversationRow> {
    const handedOff = await this.change(changes, tenantId, conversation.id, {
      status: 'handed_off',
      handedOffAt: now,
      waitingSince: waitingSince ?? conversation.waitingSince,
    });
    await changes.emit({ type: 'conversation.handed_off', object: toConversationResponse(handedOff) });
    return handedOff;
  }

  private step<T>(tenantId: string, conversationId: string, work: (conversation: ConversationRow, changes: TransactionChanges) => Promise<T>): Promise<T> {
    return this.changes.transaction(tenantId, async (changes) => work(await this.locked(tenantId, conversationId, changes), changes));
  }

  private async locked(tenantId: string, conversationId: string, { tx }: TransactionChanges): Promise<ConversationRow> {
    const conversation = await this.conversations.lock(tenantId, conversationId, tx);
    if (!conversation) throw new NotFoundError('Conversation');
    return conversation;
  }

  private async change(changes: TransactionChanges, tenantId: string, conversationId: string, change: ConversationChange): Promise<ConversationRow> {
    await this.conversations.update(tenantId, conversationId, change, changes.tx);
    return (await this.conversations.findById(tenantId, conversationId, changes.tx))!;
  }
}
