import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../../common/errors/app-error';
import { PLANS, type Plan } from '../../tenancy/plans';
import type { ConversationRow, MessageRow, VisitorProfile } from '../conversations.repository';
import { ConversationTurn } from '../turn/conversation-turn';
import { answeringBot, type Exchange } from '../turn/turn';
import { newVisitorId, VisitorsRepository } from '../visitors/visitors.repository';
import { ApiChannelRepository } from './api-channel.repository';
import type { OpenApiConversationDto } from './dto/api-channel.dto';

/** The caller of an API-channel route: the key's (or the signed-in member's) tenant. */
export interface ApiChannelCaller {
  tenantId: string;
  plan: Plan;
}

/**
 * The API channel (API_DECISIONS part 4): an adapter of the conversation core for a tenant that
 * bridges its own messenger (WhatsApp, Slack, n8n). Its caller is the tenant itself, so it vouches
 * for the person: an `externalId` makes them a known visitor. It speaks only in the conversations
 * it opened (`channel: api`); a widget visitor's conversation belongs to their browser and is not
 * found here, as another visitor's is not found by the widget. An inactive bot answers nothing (409 BOT_INACTIVE).
 */
@Injectable()
export class ApiChannelService {
  constructor(
    private readonly channel: ApiChannelRepository,
    private readonly visitors: VisitorsRepository,
    private readonly turn: ConversationTurn,
  ) {}

  /** A new conversation of the person with the bot, opened by its welcome message. */
  async open(caller: ApiChannelCaller, opening: OpenApiConversationDto): Promise<{ conversation: ConversationRow; messages: MessageRow[] }> {
    // Another tenant's bot looks exactly like a missing one: a 400 on the body's field, as for a lead's botId.
    const bot = answeringBot(await this.channel.bot(caller.tenantId, opening.botId), () =>
      ValidationError.field('botId', 'must be the id of one of your bots'),
    );
    const { visitorId, profile } = await this.visitorOf(caller.tenantId, opening);
    return this.turn.open(caller.tenantId, bot, { channel: 'api', visitorId, profile });
  }

  /** The person's message and the bot's reply (ConversationTurn), counted under the plan's month as the widget's are. */
  async exchange(caller: ApiChannelCaller, conversationId: string, content: string, onDelta?: (text: string) => void): Promise<Exchange> {
    const found = await this.channel.conversationAndBot(caller.tenantId, conversationId);
    if (!found) throw new NotFoundError('Conversation');
    return this.turn.take({
      tenantId: caller.tenantId,
      bot: answeringBot(found.bot),
      conversation: found.conversation,
      content,
      limits: { month: PLANS[caller.plan].messagesLimit },
      onDelta,
    });
  }

  /** A known visitor by its external id (the same id as their widget conversations), else a new anonymous one. */
  private async visitorOf(tenantId: string, opening: OpenApiConversationDto): Promise<{ visitorId: string; profile: VisitorProfile }> {
    const { email = null, name = null } = opening.visitor ?? {};
    if (opening.externalId === undefined) return { visitorId: newVisitorId(), profile: { visitorEmail: email, visitorName: name } };
    const known = await this.visitors.identify(tenantId, { externalId: opening.externalId, email, name });
    return { visitorId: known.id, profile: { visitorExternalId: opening.externalId, visitorEmail: known.email, visitorName: known.name } };
  }
}
