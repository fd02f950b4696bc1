import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { assertDateRange } from '../common/paging/date-range';
import { Page, Pagination, toPagination } from '../common/paging/pagination';
import { BotsRepository } from '../bots/bots.repository';
import type { Actor } from '../events/actor';
import { Changes, type TransactionChanges } from '../events/changes';
import type { ConversationChannel, ConversationStatus, MessageRole } from '../generated/prisma/enums';
import type { LeadRow } from '../leads/leads.repository';
import { LeadContact, LeadsService } from '../leads/leads.service';
import { toConversationResponse, toMessageResponse } from './conversation.mapper';
import { ConversationFilter, ConversationRow, ConversationsRepository, MessageRow } from './conversations.repository';
import { VisitorsRepository } from './visitors/visitors.repository';

export interface ConversationRecord {
  status?: ConversationStatus;
  channel?: ConversationChannel;
  visitorId?: string | null;
  createdAt?: Date;
  messages: { role: MessageRole; content: string; createdAt?: Date }[];
  lead?: LeadContact;
}

@Injectable()
export class ConversationsService {
  constructor(
    private readonly changes: Changes,
    private readonly conversations: ConversationsRepository,
    private readonly bots: BotsRepository,
    private readonly leads: LeadsService,
    private readonly visitors: VisitorsRepository,
  ) {}

  /** `externalId`: the conversations of the visitor the tenant identified so, by its visitor id (none when it never was). */
  async listConversations(
    tenantId: string,
    { externalId, ...filter }: ConversationFilter & { externalId?: string },
    page: Page,
  ): Promise<{ conversations: ConversationRow[]; pagination: Pagination }> {
    assertDateRange(filter);
    if (externalId !== undefined) {
      const visitorId = await this.visitors.idOf(tenantId, externalId);
      if (visitorId === null) return { conversations: [], pagination: toPagination(page, 0) };
      filter.visitorId = visitorId;
    }
    const [conversations, total] = await Promise.all([this.conversations.list(tenantId, filter, page), this.conversations.count(tenantId, filter)]);
    return { conversations, pagination: toPagination(page, total) };
  }

  async getConversation(tenantId: string, conversationId: string): Promise<ConversationRow> {
    const conversation = await this.conversations.findById(tenantId, conversationId);
    if (!conversation) throw new NotFoundError('Conversation');
    return conversation;
  }

  async listMessages(tenantId: string, conversationId: string, page: Page): Promise<{ messages: MessageRow[]; pagination: Pagination }> {
    const found = await this.conversations.listMessages(tenantId, conversationId, page);
    if (!found) throw new NotFoundError('Conversation');
    const { messages, total } = found;
    return { messages, pagination: toPagination(page, total) };
  }

  /**
   * DELETE /api/v1/conversations/:id: the conversation and its messages go, with a
   * `conversation.deleted` event that carries its id only, and an audit row naming who deleted it.
   */
  async deleteConversation(tenantId: string, conversationId: string, actor: Actor): Promise<void> {
    await this.changes.transaction(tenantId, async (changes) => {
      if (!(await this.conversations.delete(tenantId, conversationId, changes.tx))) throw new NotFoundError('Conversation');
      await changes.emit({ type: 'conversation.deleted', object: { id: conversationId } });
      await changes.audit(actor, { action: 'conversation.deleted', targetId: conversationId });
    });
  }

  /** The conversation's lead, captured in the chat: one per conversation, linked both ways (two forms sent at once give one). */
  captureLead(tenantId: string, conversation: ConversationRow, contact: LeadContact): Promise<LeadRow> {
    return this.changes.transaction(tenantId, async (changes) => {
      // Read again in the transaction: of two forms sent at once, the second finds the first's lead.
      const current = await this.conversations.findById(tenantId, conversation.id, changes.tx);
      if (!current) throw new NotFoundError('Conversation');
      if (current.leadId) throw leadAlreadyCaptured();
      const origin = { botId: current.botId, conversationId: current.id };
      const lead = await this.leads.captureChatLead(changes, tenantId, origin, contact, new Date());
      if (!(await this.conversations.linkLeadIfNone(tenantId, current.id, lead.id, changes.tx))) throw leadAlreadyCaptured();
      return lead;
    });
  }

  /**
   * Stores a conversation as the chat widget produced it, with its messages and the lead it
   * captured, in one transaction (the dashboard's import and the demo data use it).
   */
  async recordConversation(tenantId: string, botId: string, record: ConversationRecord, actor: Actor): Promise<ConversationRow> {
    return this.changes.transaction(tenantId, async (changes) => {
      const { tx } = changes;
      if (!(await this.bots.exists(tenantId, botId, tx))) throw new NotFoundError('Bot');
      const startedAt = record.createdAt ?? new Date();
      const status = record.status ?? 'active';
      const { id } = await this.conversations.create(
        tenantId,
        {
          botId,
          status,
          channel: record.channel ?? 'widget',
          visitorId: record.visitorId ?? null,
          createdAt: startedAt,
          endedAt: status === 'ended' ? lastMessageTime(record, startedAt) : null,
        },
        tx,
      );
      // Messages without a time follow the conversation's start a millisecond apart, keeping their order.
      const messages = record.messages.map((message, index) => ({ ...message, createdAt: message.createdAt ?? new Date(startedAt.getTime() + index) }));
      const stored = messages.length ? await this.conversations.addMessages(tenantId, id, messages, tx) : [];
      if (record.lead) {
        const lead = await this.leads.captureChatLead(changes, tenantId, { botId, conversationId: id }, record.lead, lastMessageTime(record, startedAt));
        await this.conversations.linkLead(tenantId, id, lead.id, tx);
      }
      const conversation = (await this.conversations.findById(tenantId, id, tx))!;
      await this.emitRecorded(changes, conversation, stored);
      await changes.audit(actor, {
        action: 'conversation.recorded',
        targetId: id,
        data: { botId, messages: record.messages.length, leadId: conversation.leadId },
      });
      return conversation;
    });
  }

  /**
   * The events of a recorded conversation: started, each message in order, ended. All carry the
   * conversation as stored (lead linked); its lead's lead.created is queued when the lead is stored.
   */
  private async emitRecorded(changes: TransactionChanges, conversation: ConversationRow, messages: MessageRow[]): Promise<void> {
    const object = toConversationResponse(conversation);
    const ordered = [...messages].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    await changes.emit(
      { type: 'conversation.started', object },
      ...ordered.map((message) => ({ type: 'message.created' as const, object: toMessageResponse(message) })),
      ...(conversation.status === 'ended' ? [{ type: 'conversation.ended' as const, object }] : []),
    );
  }
}

function leadAlreadyCaptured(): AppError {
  return new AppError(ErrorCode.LEAD_ALREADY_CAPTURED, 'This conversation already has its lead.');
}

function lastMessageTime(record: ConversationRecord, startedAt: Date): Date {
  const times = record.messages.map((message, index) => (message.createdAt ?? new Date(startedAt.getTime() + index)).getTime());
  return new Date(Math.max(startedAt.getTime(), ...times));
}
