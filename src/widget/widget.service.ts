import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { isUuid } from '../common/validation/uuid';
import type { VisitorPrincipal } from '../common/http/request-context';
import { ConversationRow, ConversationsRepository, MessageRow } from '../conversations/conversations.repository';
import { ConversationsService } from '../conversations/conversations.service';
import { HandoffService } from '../conversations/handoff.service';
import { ConversationTurn } from '../conversations/turn/conversation-turn';
import { answeringBot, type Exchange } from '../conversations/turn/turn';
import { newVisitorId, VisitorsRepository } from '../conversations/visitors/visitors.repository';
import { LeadRow } from '../leads/leads.repository';
import { TenantSettingsCache } from '../settings/tenant-settings-cache';
import type { TenantSettingsRow } from '../settings/settings.repository';
import { widgetRepliesPerDay } from '../settings/widget-replies-per-day';
import { PLANS, type Plan } from '../tenancy/plans';
import type { WidgetLeadDto } from './dto/widget.dto';
import { verifyIdentityToken } from './identity-token';
import { VISITOR_RENEWAL_WINDOW_S, VISITOR_TOKEN_LIFETIME_S, VisitorTokens } from './visitor-token';
import { WidgetLimits } from './widget-limits';
import { WIDGET_MESSAGES_PAGE, WidgetBotRow, WidgetRepository } from './widget.repository';

/** The caller of a widget route: the public key's tenant and the client's address (IPv6: its /64). */
export interface WidgetCaller {
  tenantId: string;
  plan: Plan;
  clientIp: string;
}

/**
 * The widget channel (API_DECISIONS, Widget): an adapter of the conversation core. It resolves its
 * caller (the public key's tenant, the visitor token's visitor and bot, the visitor's own
 * conversation), applies the widget's own limits, and calls the turn, the handoff and the leads;
 * everything a conversation is and announces lives there. An inactive bot answers nothing (409 BOT_INACTIVE).
 */
@Injectable()
export class WidgetService {
  constructor(
    private readonly tokens: VisitorTokens,
    private readonly limits: WidgetLimits,
    private readonly widget: WidgetRepository,
    private readonly settings: TenantSettingsCache,
    private readonly conversations: ConversationsRepository,
    private readonly turn: ConversationTurn,
    private readonly handoff: HandoffService,
    private readonly conversationLeads: ConversationsService,
    private readonly visitors: VisitorsRepository,
  ) {}

  /** The bot as the widget shows it, with the tenant's lead-form settings. */
  async botConfig(caller: WidgetCaller, botId: string): Promise<{ bot: WidgetBotRow; settings: TenantSettingsRow }> {
    const bot = await this.activeBot(caller.tenantId, botId);
    return { bot, settings: await this.settings.of(caller.tenantId) };
  }

  /**
   * A visitor token for the bot. The service mints visitor ids: the visitor of an earlier token of
   * this tenant (genuine, expired at most 30 days ago) is kept; anything else gets a fresh id, so
   * no caller can claim another visitor's conversations by naming its id. A valid identity token
   * (signed by the tenant's back end) names the visitor instead: the tenant's user's visitor, the
   * same on every device (VisitorsRepository.identify), the earlier token's anonymous id dropped.
   */
  async startSession(
    caller: WidgetCaller,
    botId: string,
    { previousToken, identityToken }: { previousToken?: string; identityToken?: string },
    now = new Date(),
  ): Promise<{ visitorToken: string; visitorId: string; expiresAt: Date }> {
    await this.limits.countSession(caller.clientIp);
    await this.activeBot(caller.tenantId, botId);
    const nowS = Math.floor(now.getTime() / 1000);
    const settings = await this.settings.of(caller.tenantId);
    let visitorId: string;
    if (identityToken !== undefined) {
      // Read from the cached settings: a new or deleted secret drops them on every instance (InvalidationBus).
      const identity = await verifyIdentityToken(identityToken, settings.identitySecret, now);
      visitorId = (await this.visitors.identify(caller.tenantId, identity)).id;
    } else {
      // Without a secret no token could be valid: required then refuses nobody (deleting the secret resets it; this covers a PATCH racing that).
      if (settings.identityRequired && settings.identitySecret !== null)
        throw new AppError(ErrorCode.IDENTITY_REQUIRED, 'This widget serves identified visitors only: send an identityToken.');
      const previous = this.tokens.verify(previousToken, nowS, VISITOR_RENEWAL_WINDOW_S);
      visitorId = previous?.tenantId === caller.tenantId ? previous.visitorId : newVisitorId();
    }
    const expiresAt = nowS + VISITOR_TOKEN_LIFETIME_S;
    const visitorToken = this.tokens.sign({ tenantId: caller.tenantId, botId, visitorId, expiresAt });
    return { visitorToken, visitorId, expiresAt: new Date(expiresAt * 1000) };
  }

  /** A new conversation of the visitor with the token's bot, opened by its welcome message. */
  async startConversation(caller: WidgetCaller, visitor: VisitorPrincipal): Promise<{ conversation: ConversationRow; messages: MessageRow[] }> {
    const bot = await this.activeBot(caller.tenantId, visitor.botId);
    const profile = await this.visitors.profileOf(caller.tenantId, visitor.visitorId);
    return this.turn.open(caller.tenantId, bot, { channel: 'widget', visitorId: visitor.visitorId, profile });
  }

  /** The visitor's newest conversations with the token's bot (the same visitor on another device finds theirs). */
  async conversationsOf(caller: WidgetCaller, visitor: VisitorPrincipal): Promise<ConversationRow[]> {
    await this.activeBot(caller.tenantId, visitor.botId);
    return this.widget.visitorConversations(caller.tenantId, visitor.botId, visitor.visitorId);
  }

  async messages(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string, after: string | undefined): Promise<MessageRow[]> {
    const { conversation } = await this.visitorConversation(caller, visitor, conversationId);
    const messages = await this.conversations.messagesAfter(caller.tenantId, conversation.id, after, WIDGET_MESSAGES_PAGE);
    if (!messages) throw ValidationError.field('after', 'must be the id of a message of this conversation');
    return messages;
  }

  /**
   * The visitor's message and the bot's reply (ConversationTurn), under the widget's limits: the
   * visitor's messages per minute, the bot's replies per address, and the tenant's replies a day
   * (settings' widgetLimits.repliesPerDay) beside the plan's month.
   */
  async exchange(
    caller: WidgetCaller,
    visitor: VisitorPrincipal,
    conversationId: string,
    content: string,
    onDelta?: (text: string) => void,
  ): Promise<Exchange> {
    const { bot, conversation } = await this.visitorConversation(caller, visitor, conversationId);
    const settings = await this.settings.of(caller.tenantId);
    if (conversation.status !== 'ended') await this.limits.countVisitorMessage(settings, visitor);
    return this.turn.take({
      tenantId: caller.tenantId,
      bot,
      conversation,
      content,
      limits: { month: PLANS[caller.plan].messagesLimit, widgetDay: widgetRepliesPerDay(settings, caller.plan) },
      beforeReply: () => this.limits.countReply(caller.tenantId, settings, caller.clientIp),
      onDelta,
    });
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

  /** The lead form: one lead per conversation, with source `widget`, linked both ways (the tenant's form settings decide what is required). */
  async captureLead(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string, contact: WidgetLeadDto): Promise<LeadRow> {
    const { conversation } = await this.visitorConversation(caller, visitor, conversationId);
    const settings = await this.settings.of(caller.tenantId);
    if (!settings.leadCaptureEnabled) throw new AppError(ErrorCode.LEAD_CAPTURE_DISABLED, 'Lead capture is turned off for this widget.');
    const missing = [
      ...(settings.leadCaptureRequirePhone && !contact.phone ? [{ field: 'phone', message: 'is required' }] : []),
      ...(settings.leadCaptureRequireCompany && !contact.company ? [{ field: 'company', message: 'is required' }] : []),
    ];
    if (missing.length) throw new ValidationError(missing);
    return this.conversationLeads.captureLead(caller.tenantId, conversation, contact);
  }

  /** Ends the conversation (again: nothing changes) and sends conversation.ended once, as an agent's end does. */
  async end(caller: WidgetCaller, visitor: VisitorPrincipal, conversationId: string): Promise<ConversationRow> {
    const { conversation } = await this.visitorConversation(caller, visitor, conversationId);
    return this.handoff.end(caller.tenantId, conversation.id);
  }

  private async activeBot(tenantId: string, botId: string): Promise<WidgetBotRow> {
    return answeringBot(await this.widget.bot(tenantId, botId));
  }

  /** The visitor's own conversation with the token's bot, the bot active; another's is 404. */
  private async visitorConversation(
    caller: WidgetCaller,
    visitor: VisitorPrincipal,
    conversationId: string,
  ): Promise<{ bot: WidgetBotRow; conversation: ConversationRow }> {
    const found = await this.widget.botAndConversation(caller.tenantId, visitor.botId, visitor.visitorId, conversationId);
    const bot = answeringBot(found?.bot);
    if (!found?.conversation) throw new NotFoundError('Conversation');
    return { bot, conversation: found.conversation };
  }
}
