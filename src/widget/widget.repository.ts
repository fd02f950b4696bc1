import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { conversationSelect, ConversationRow } from '../conversations/conversations.repository';

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
}
