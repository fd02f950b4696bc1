import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { conversationSelect, ConversationRow, messageSelect, MessageRow } from '../conversations/conversations.repository';

const widgetBotSelect = {
  id: true,
  name: true,
  isActive: true,
  avatarUrl: true,
  primaryColor: true,
  language: true,
  welcomeMessage: true,
  suggestedQuestions: true,
  fallbackMessage: true,
  showSources: true,
  synonyms: true,
  handoffEnabled: true,
  handoffOnFallback: true,
  handoffMessage: true,
} satisfies Prisma.BotSelect;

export type WidgetBotRow = Prisma.BotGetPayload<{ select: typeof widgetBotSelect }>;

/** MAX messages a widget reads at once after a given one (it polls with `after`). */
export const WIDGET_MESSAGES_PAGE = 100;

/** What the widget reads: its bot and a visitor's own conversations (settings: SettingsRepository). */
@Injectable()
export class WidgetRepository {
  constructor(private readonly prisma: PrismaService) {}

  bot(tenantId: string, botId: string): Promise<WidgetBotRow | null> {
    return this.prisma.bot.findFirst({ where: { tenantId, id: botId }, select: widgetBotSelect });
  }

  /** The conversation if it is this visitor's, with this bot; null for anyone else's. */
  visitorConversation(
    tenantId: string,
    botId: string,
    visitorId: string,
    conversationId: string,
    tx: PrismaTransaction = this.prisma,
  ): Promise<ConversationRow | null> {
    return tx.conversation.findFirst({ where: { tenantId, botId, visitorId, channel: 'widget', id: conversationId }, select: conversationSelect });
  }

  /** Up to a page of the conversation's messages, oldest first, after the given one (all from the start without it). */
  async messagesAfter(tenantId: string, conversationId: string, afterId: string | undefined): Promise<MessageRow[] | null> {
    const after = afterId
      ? await this.prisma.message.findFirst({ where: { tenantId, conversationId, id: afterId }, select: { id: true, createdAt: true } })
      : undefined;
    if (after === null) return null;
    return this.prisma.message.findMany({
      where: {
        tenantId,
        conversationId,
        ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: WIDGET_MESSAGES_PAGE,
      select: messageSelect,
    });
  }
}
