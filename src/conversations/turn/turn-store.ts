import { Injectable } from '@nestjs/common';
import { v7 } from 'uuid';
import { Prisma } from '../../generated/prisma/client';
import type { Answer } from '../../answering/answer';
import { Changes, type TransactionChanges } from '../../events/changes';
import type { ReplyAllowance } from '../../usage/message-quota';
import type { ReplyCounts } from '../../usage/message-quota.repository';
import { toConversationResponse, toMessageResponse } from '../conversation.mapper';
import { ConversationsRepository, MessageRow } from '../conversations.repository';
import { HandoffService } from '../handoff.service';
import { conversationEnded } from './turn';

/** What a turn stored: the visitor's message, and the bot's reply unless a person holds the conversation. */
export interface StoredTurn {
  message: MessageRow;
  reply: MessageRow | null;
}

const messageEvents = (messages: MessageRow[]) => messages.map((stored) => ({ type: 'message.created' as const, object: toMessageResponse(stored) }));

/**
 * Where a turn's messages are written, each way atomic and with its events emitted once (Changes):
 * the ordinary reply in one statement, the reply that hands off (or found the conversation
 * changed) in a transaction, and the visitor's message alone while a person holds the conversation.
 */
@Injectable()
export class TurnStore {
  constructor(
    private readonly changes: Changes,
    private readonly conversations: ConversationsRepository,
    private readonly handoff: HandoffService,
  ) {}

  /**
   * The ordinary reply in one statement, atomic without a transaction: the conversation locked and
   * still active, the reply counted under the quota, both messages and their events stored. The
   * interactive transaction took six round trips (BEGIN, lock, count, insert, outbox, COMMIT) and
   * ~2 ms of CPU a message. Undefined when nothing was stored (the conversation ended or handed off
   * meanwhile, or a limit reached): the transaction then finds out which, and answers as it always has.
   */
  async replyInOneStatement(
    tenantId: string,
    conversationId: string,
    content: string,
    answer: Answer,
    allowance: ReplyAllowance,
  ): Promise<StoredTurn | undefined> {
    const now = new Date();
    const message: MessageRow = { id: v7(), conversationId, role: 'user', content, authorName: null, createdAt: now };
    // A millisecond later: the reply sorts after the question.
    const reply: MessageRow = {
      id: v7(),
      conversationId,
      role: 'assistant',
      content: answer.content,
      authorName: null,
      createdAt: new Date(now.getTime() + 1),
    };
    const active = Prisma.sql`EXISTS (SELECT 1 FROM "conversation" WHERE "status" = 'active')`;
    const preceding = Prisma.sql`"conversation" AS (${this.conversations.lockStatement(tenantId, conversationId)}),
      "usage" AS (${allowance.countingStatement(now, active)})`;
    const insert = this.conversations.insertMessagesStatement(tenantId, conversationId, [message, { ...reply, unanswered: answer.unanswered }], {
      when: Prisma.sql`EXISTS (SELECT 1 FROM "usage")`,
      returning: Prisma.sql`"id", (SELECT "count" FROM "usage") AS "count", (SELECT "widgetDayCount" FROM "usage") AS "widgetDayCount"`,
    });
    const rows = await this.changes.along<{ id: string } & ReplyCounts>(tenantId, insert, messageEvents([message, reply]), preceding);
    if (!rows.length) return undefined;
    allowance.counted({ count: rows[0].count, widgetDayCount: rows[0].widgetDayCount }, now);
    return { message, reply };
  }

  /**
   * The reply in a transaction: under the conversation's lock an ended conversation is 409, a
   * held one stores the message alone; else the reply is counted (or refused, and nothing stored),
   * both messages stored, and with `handsOff` the conversation handed to a person after the reply.
   */
  async replyInTransaction(
    tenantId: string,
    conversationId: string,
    content: string,
    answer: Answer,
    allowance: ReplyAllowance,
    handsOff: boolean,
  ): Promise<StoredTurn> {
    let counted: { counts: ReplyCounts; at: Date } | undefined;
    const stored = await this.changes.transaction(tenantId, async (changes): Promise<StoredTurn> => {
      const waiting = await this.storeForAgent(changes, tenantId, conversationId, content);
      if (waiting) return waiting;
      const now = new Date();
      counted = { counts: await allowance.take(now, changes.tx), at: now };
      const [message, reply] = await this.conversations.addMessages(
        tenantId,
        conversationId,
        [
          { role: 'user', content, createdAt: now },
          // A millisecond later: the reply sorts after the question.
          { role: 'assistant', content: answer.content, createdAt: new Date(now.getTime() + 1), unanswered: answer.unanswered },
        ],
        changes.tx,
      );
      await changes.emit(...messageEvents([message, reply]));
      if (handsOff) {
        const current = (await this.conversations.findById(tenantId, conversationId, changes.tx))!;
        await this.handoff.handOffIn(changes, tenantId, current, reply.createdAt, now);
      }
      return { message, reply };
    });
    // Committed: this instance's /verify reports the reply at once.
    if (counted !== undefined) allowance.counted(counted.counts, counted.at);
    return stored;
  }

  /** The visitor's message alone when a person holds the conversation (checked under its lock); undefined when the bot may reply. */
  forAgentIfHeld(tenantId: string, conversationId: string, content: string): Promise<StoredTurn | undefined> {
    return this.changes.transaction(tenantId, (changes) => this.storeForAgent(changes, tenantId, conversationId, content));
  }

  /**
   * Under the conversation's lock: an ended conversation is 409; a handed-off one stores the
   * visitor's message alone (no reply, no quota) and starts the wait; undefined lets the bot reply.
   */
  private async storeForAgent(changes: TransactionChanges, tenantId: string, conversationId: string, content: string): Promise<StoredTurn | undefined> {
    const current = (await this.conversations.lock(tenantId, conversationId, changes.tx))!;
    if (current.status === 'ended') throw conversationEnded();
    if (current.status !== 'handed_off') return undefined;
    const now = new Date();
    const [message] = await this.conversations.addMessages(tenantId, conversationId, [{ role: 'user', content, createdAt: now }], changes.tx);
    await changes.emit(...messageEvents([message]));
    if (!current.waitingSince) {
      await this.conversations.update(tenantId, conversationId, { waitingSince: now }, changes.tx);
      const waiting = (await this.conversations.findById(tenantId, conversationId, changes.tx))!;
      await changes.emit({ type: 'conversation.waiting_changed', object: toConversationResponse(waiting) });
    }
    return { message, reply: null };
  }
}
