import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { v7 } from 'uuid';
import { Prisma } from '../generated/prisma/client';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { isUuid } from '../common/validation/uuid';
import { ConversationRow, ConversationsRepository, MessageRow } from '../conversations/conversations.repository';
import { toConversationResponse, toMessageResponse } from '../conversations/conversation.mapper';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { HandoffService } from '../conversations/handoff.service';
import { ConversationFeed, LiveEvent } from '../conversations/live/conversation-feed';
import { EventRecorder } from '../events/event-recorder';
import { LeadRow } from '../leads/leads.repository';
import { LeadsService } from '../leads/leads.service';
import { PLANS, type Plan } from '../tenancy/plans';
import type { Answer } from '../answering/answer';
import { AnswerService } from '../answering/answer.service';
import type { WidgetLeadDto } from './dto/widget.dto';
import { MessageQuota } from '../usage/message-quota';
import { countReplyStatement, type ReplyCounts, type ReplyLimits } from '../usage/message-quota.repository';
import type { VisitorPrincipal } from '../common/http/request-context';
import { VISITOR_RENEWAL_WINDOW_S, VISITOR_TOKEN_LIFETIME_S, VisitorTokens } from './visitor-token';
import { WidgetLimits } from './widget-limits';
import type { TenantSettingsRow } from '../settings/settings.repository';
import { TenantSettingsCache } from '../settings/tenant-settings-cache';
import { widgetRepliesPerDay } from '../settings/widget-replies-per-day';
import { WIDGET_MESSAGES_PAGE, WidgetBotRow, WidgetRepository } from './widget.repository';

/** The caller of a widget route: the public key's tenant and the client's address (IPv6: its /64). */
export interface WidgetCaller {
  tenantId: string;
  plan: Plan;
  clientIp: string;
}

/** A visitor's message and the bot's reply, stored together; no reply while a person has the conversation. */
export type Exchange = { message: MessageRow; reply: MessageRow; answer: Answer } | { message: MessageRow; reply: null; answer: null };

/**
 * The live side of a bot (API_DECISIONS, Widget): visitors' sessions, their conversations, the
 * bot's replies, the lead form. Every write updates the same rows and sends the same events as
 * the other paths, in one transaction; an inactive bot answers nothing (409 BOT_INACTIVE).
 */
@Injectable()
export class WidgetService {
  constructor(
    private readonly tokens: VisitorTokens,
    private readonly answers: AnswerService,
    private readonly limits: WidgetLimits,
    private readonly prisma: PrismaService,
    private readonly widget: WidgetRepository,
    private readonly settings: TenantSettingsCache,
    private readonly conversations: ConversationsRepository,
    private readonly quota: MessageQuota,
    private readonly leads: LeadsService,
    private readonly events: EventRecorder,
    private readonly handoff: HandoffService,
    private readonly feed: ConversationFeed,
  ) {}

  /** The bot as the widget shows it, with the tenant's lead-form settings. */
  async botConfig(caller: WidgetCaller, botId: string): Promise<{ bot: WidgetBotRow; settings: TenantSettingsRow }> {
    const bot = await this.activeBot(caller.tenantId, botId);
    return { bot, settings: await this.settings.of(caller.tenantId) };
  }

  /**
   * A visitor token for the bot. The service mints visitor ids: the visitor of an earlier token of
   * this tenant (genuine, expired at most 30 days ago) is kept; anything else gets a fresh id, so
   * no caller can claim another visitor's conversations by naming its id.
   */
  async startSession(
    caller: WidgetCaller,
    botId: string,
    previousToken: string | undefined,
    now = new Date(),
  ): Promise<{ visitorToken: string; visitorId: string; expiresAt: Date }> {
    await this.limits.countSession(caller.clientIp);
    await this.activeBot(caller.tenantId, botId);
    const nowS = Math.floor(now.getTime() / 1000);
    const previous = this.tokens.verify(previousToken, nowS, VISITOR_RENEWAL_WINDOW_S);
    const visitor = previous?.tenantId === caller.tenantId ? previous.visitorId : `v_${randomBytes(12).toString('base64url')}`;
    const expiresAt = nowS + VISITOR_TOKEN_LIFETIME_S;
    return {
      visitorToken: this.tokens.sign({ tenantId: caller.tenantId, botId, visitorId: visitor, expiresAt }),
      visitorId: visitor,
      expiresAt: new Date(expiresAt * 1000),
    };
  }

  /** A new conversation of the visitor with the token's bot, opened by its welcome message. */
  async startConversation(caller: WidgetCaller, visitor: VisitorPrincipal): Promise<{ conversation: ConversationRow; messages: MessageRow[] }> {
    const bot = await this.activeBot(caller.tenantId, visitor.botId);
    return this.prisma.$transaction(async (tx) => {
      const now = new Date();
      const { id } = await this.conversations.create(
        caller.tenantId,
        { botId: bot.id, status: 'active', channel: 'widget', visitorId: visitor.visitorId, createdAt: now, endedAt: null },
        tx,
      );
      const messages = bot.welcomeMessage
        ? await this.conversations.addMessages(caller.tenantId, id, [{ role: 'assistant', content: bot.welcomeMessage, createdAt: now }], tx)
        : [];
      const conversation = (await this.conversations.findById(caller.tenantId, id, tx))!;
      await this.events.publishAll(tx, caller.tenantId, [
        { type: 'conversation.started', object: toConversationResponse(conversation) },
        ...messages.map((message) => ({ type: 'message.created' as const, object: toMessageResponse(message) })),
      ]);
      return { conversation, messages };
    });
  }

  async messages(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string, after: string | undefined): Promise<MessageRow[]> {
    const { conversation } = await this.visitorConversation(caller, visitor, conversationId);
    const messages = await this.conversations.messagesAfter(caller.tenantId, conversation.id, after, WIDGET_MESSAGES_PAGE);
    if (!messages) throw ValidationError.field('after', 'must be the id of a message of this conversation');
    return messages;
  }

  /**
   * The visitor's message and the bot's reply. The checks and the answer come first (the answer
   * may take seconds, from an LLM); then one short transaction locks the conversation, counts the
   * reply against the month and the tenant's widget day, stores both messages and queues their
   * events. A reply over either limit is refused there, exactly, and nothing is stored. While a person has the
   * conversation (handed_off, seen under the lock, so a handoff during the answer wins) the bot
   * stays silent: the message alone is stored, counted against nothing, and waits for an agent.
   * With the bot's handoff.onFallback, an unanswered question hands the conversation off after the
   * fallback reply.
   */
  async exchange(
    caller: WidgetCaller,
    visitor: VisitorPrincipal,
    conversationId: string,
    content: string,
    onDelta?: (text: string) => void,
  ): Promise<Exchange> {
    const { bot, conversation } = await this.visitorConversation(caller, visitor, conversationId);
    if (conversation.status === 'ended') throw conversationEnded();
    const settings = await this.settings.of(caller.tenantId);
    await this.limits.countVisitorMessage(settings, visitor);
    if (conversation.status === 'handed_off') {
      const live: LiveEvent[] = [];
      const waiting = await this.prisma.$transaction((tx) => this.storeForAgent(caller.tenantId, conversation.id, content, live, tx));
      if (waiting) {
        await this.feed.publish(conversation.id, ...live);
        return waiting;
      }
    }
    await this.limits.countReply(caller.tenantId, settings, caller.clientIp);
    const limits: ReplyLimits = { month: PLANS[caller.plan].messagesLimit, widgetDay: widgetRepliesPerDay(settings, caller.plan) };
    await this.quota.check(caller.tenantId, limits);
    const answer = await this.answers.answer({ tenantId: caller.tenantId, bot, question: content }, onDelta);
    const answered = { ...answer, sources: bot.showSources ? answer.sources : [] };
    // A reply that hands the conversation off needs the transaction below; the others try one statement first.
    if (!(answer.unanswered && bot.handoffEnabled && bot.handoffOnFallback)) {
      const stored = await this.storeReply(caller.tenantId, conversation.id, content, answer, limits);
      if (stored) {
        this.quota.remember(caller.tenantId, stored.counts, stored.message.createdAt, true);
        await this.feed.publish(
          conversation.id,
          ...[stored.message, stored.reply].map((message) => ({ kind: 'message' as const, message: toMessageResponse(message) })),
        );
        return { message: stored.message, reply: stored.reply, answer: answered };
      }
    }
    const live: LiveEvent[] = [];
    let counted: { counts: ReplyCounts; at: Date } | undefined;
    const exchange = await this.prisma.$transaction(async (tx): Promise<Exchange> => {
      const waiting = await this.storeForAgent(caller.tenantId, conversation.id, content, live, tx);
      if (waiting) return waiting;
      const now = new Date();
      counted = { counts: await this.quota.take(caller.tenantId, limits, now, tx), at: now };
      const [message, reply] = await this.conversations.addMessages(
        caller.tenantId,
        conversation.id,
        [
          { role: 'user', content, createdAt: now },
          // A millisecond later: the reply sorts after the question.
          { role: 'assistant', content: answer.content, createdAt: new Date(now.getTime() + 1), unanswered: answer.unanswered },
        ],
        tx,
      );
      await this.events.publishAll(
        tx,
        caller.tenantId,
        [message, reply].map((stored) => ({ type: 'message.created' as const, object: toMessageResponse(stored) })),
      );
      live.push({ kind: 'message', message: toMessageResponse(message) }, { kind: 'message', message: toMessageResponse(reply) });
      if (answer.unanswered && bot.handoffEnabled && bot.handoffOnFallback) {
        const current = (await this.conversations.findById(caller.tenantId, conversation.id, tx))!;
        live.push({
          kind: 'conversation',
          conversation: toConversationResponse(await this.handoff.handOffIn(tx, caller.tenantId, current, reply.createdAt, now)),
        });
      }
      return { message, reply, answer: answered };
    });
    // Committed: this instance's /verify reports the reply at once; the visitor's other tabs and the tenant's people hear it.
    if (counted !== undefined) this.quota.remember(caller.tenantId, counted.counts, counted.at, true);
    await this.feed.publish(conversation.id, ...live);
    return exchange;
  }

  /**
   * The ordinary reply in one statement, atomic without a transaction: the conversation locked and
   * still active, the reply counted under the month's limit, both messages and their events
   * stored. The interactive transaction took six round trips (BEGIN, lock, count, insert, outbox,
   * COMMIT) and ~2 ms of CPU a message. Undefined when nothing was stored (the conversation ended
   * or handed off meanwhile, or the month's or the day's limit reached): the transaction then finds out which,
   * and answers as it always has.
   */
  private async storeReply(
    tenantId: string,
    conversationId: string,
    content: string,
    answer: Answer,
    limits: ReplyLimits,
  ): Promise<{ message: MessageRow; reply: MessageRow; counts: ReplyCounts } | undefined> {
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
      "usage" AS (${countReplyStatement(tenantId, limits, now, active)})`;
    const insert = this.conversations.insertMessagesStatement(tenantId, conversationId, [message, { ...reply, unanswered: answer.unanswered }], {
      when: Prisma.sql`EXISTS (SELECT 1 FROM "usage")`,
      returning: Prisma.sql`"id", (SELECT "count" FROM "usage") AS "count", (SELECT "widgetDayCount" FROM "usage") AS "widgetDayCount"`,
    });
    const events = [message, reply].map((stored) => ({ type: 'message.created' as const, object: toMessageResponse(stored) }));
    const rows = await this.events.publishAlong<{ id: string } & ReplyCounts>(this.prisma, tenantId, insert, events, preceding);
    return rows.length ? { message, reply, counts: { count: rows[0].count, widgetDayCount: rows[0].widgetDayCount } } : undefined;
  }

  /**
   * Under the conversation's lock: an ended conversation is 409; a handed-off one stores the
   * visitor's message alone (no reply, no quota) and starts the wait; undefined lets the bot reply.
   * `live` gets what the agents' streams must hear once committed: the message, and the wait's start.
   */
  private async storeForAgent(
    tenantId: string,
    conversationId: string,
    content: string,
    live: LiveEvent[],
    tx: PrismaTransaction,
  ): Promise<Exchange | undefined> {
    const current = (await this.conversations.lock(tenantId, conversationId, tx))!;
    if (current.status === 'ended') throw conversationEnded();
    if (current.status !== 'handed_off') return undefined;
    const now = new Date();
    const [message] = await this.conversations.addMessages(tenantId, conversationId, [{ role: 'user', content, createdAt: now }], tx);
    await this.events.publish(tx, tenantId, { type: 'message.created', object: toMessageResponse(message) });
    live.push({ kind: 'message', message: toMessageResponse(message) });
    if (!current.waitingSince) {
      await this.conversations.update(tenantId, conversationId, { waitingSince: now }, tx);
      live.push({ kind: 'conversation', conversation: toConversationResponse((await this.conversations.findById(tenantId, conversationId, tx))!) });
    }
    return { message, reply: null, answer: null };
  }

  /** The visitor asks for a person (the bot's handoff setting on, else 409 HANDOFF_DISABLED); they wait from now. */
  async handOff(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string): Promise<ConversationRow> {
    const { bot, conversation } = await this.visitorConversation(caller, visitor, conversationId);
    if (!bot.handoffEnabled) throw new AppError(ErrorCode.HANDOFF_DISABLED, 'This bot does not hand conversations to a person.');
    return this.handoff.handOff(caller.tenantId, conversation.id, new Date());
  }

  /** The visitor's conversation, for its live stream (404 for anyone else's). */
  async streamedConversation(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string): Promise<ConversationRow> {
    return (await this.visitorConversation(caller, visitor, conversationId)).conversation;
  }

  /** What a stream resumed after `afterId` missed: the messages since (undefined: the id is not this conversation's). */
  async missedMessages(caller: WidgetCaller, conversationId: string, afterId: string): Promise<MessageRow[] | undefined> {
    const messages = isUuid(afterId) ? await this.conversations.messagesAfter(caller.tenantId, conversationId, afterId, WIDGET_MESSAGES_PAGE) : null;
    return messages ?? undefined;
  }

  /** The lead form: one lead per conversation, with source `widget`, linked both ways. */
  async captureLead(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string, contact: WidgetLeadDto): Promise<LeadRow> {
    const { conversation } = await this.visitorConversation(caller, visitor, conversationId);
    const settings = await this.settings.of(caller.tenantId);
    if (!settings.leadCaptureEnabled) throw new AppError(ErrorCode.LEAD_CAPTURE_DISABLED, 'Lead capture is turned off for this widget.');
    const missing = [
      ...(settings.leadCaptureRequirePhone && !contact.phone ? [{ field: 'phone', message: 'is required' }] : []),
      ...(settings.leadCaptureRequireCompany && !contact.company ? [{ field: 'company', message: 'is required' }] : []),
    ];
    if (missing.length) throw new ValidationError(missing);
    return this.prisma.$transaction(async (tx) => {
      // Read again in the transaction: two forms sent at once give one lead.
      const current = (await this.widget.visitorConversation(caller.tenantId, conversation.botId, conversation.visitorId!, conversation.id, tx))!;
      if (current.leadId) throw new AppError(ErrorCode.LEAD_ALREADY_CAPTURED, 'This conversation already has its lead.');
      const lead = await this.leads.captureWidgetLead(caller.tenantId, conversation.botId, conversation.id, contact, new Date(), tx);
      if (!(await this.conversations.linkLeadIfNone(caller.tenantId, conversation.id, lead.id, tx))) {
        throw new AppError(ErrorCode.LEAD_ALREADY_CAPTURED, 'This conversation already has its lead.');
      }
      return lead;
    });
  }

  /** Ends the conversation (again: nothing changes) and sends conversation.ended once, as an agent's end does. */
  async end(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string): Promise<ConversationRow> {
    const { conversation } = await this.visitorConversation(caller, visitor, conversationId);
    return this.handoff.end(caller.tenantId, conversation.id);
  }

  private async activeBot(tenantId: string, botId: string): Promise<WidgetBotRow> {
    return usable(await this.widget.bot(tenantId, botId));
  }

  /** The visitor's own conversation with the token's bot, the bot active; another's is 404. */
  private async visitorConversation(
    caller: WidgetCaller,
    visitor: VisitorPrincipal,
    conversationId: string,
  ): Promise<{ bot: WidgetBotRow; conversation: ConversationRow }> {
    const found = await this.widget.botAndConversation(caller.tenantId, visitor.botId, visitor.visitorId, conversationId);
    const bot = usable(found?.bot);
    if (!found?.conversation) throw new NotFoundError('Conversation');
    return { bot, conversation: found.conversation };
  }
}

/** The bot a widget call names: 404 when it is not the tenant's, 409 BOT_INACTIVE when inactive. */
function usable(bot: WidgetBotRow | null | undefined): WidgetBotRow {
  if (!bot) throw new NotFoundError('Bot');
  if (!bot.isActive) throw new AppError(ErrorCode.BOT_INACTIVE, 'This bot is inactive: it answers no messages.');
  return bot;
}

function conversationEnded(): AppError {
  return new AppError(ErrorCode.CONVERSATION_ENDED, 'This conversation has ended; start a new one.');
}
