import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { prefixedColumns, prefixedFields } from '../database/select-columns';
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
  knowledgeVersion: true,
  handoffEnabled: true,
  handoffOnFallback: true,
  handoffMessage: true,
} satisfies Prisma.BotSelect;

export type WidgetBotRow = Prisma.BotGetPayload<{ select: typeof widgetBotSelect }>;

/** MAX messages a widget reads at once after a given one (it polls with `after`). */
export const WIDGET_MESSAGES_PAGE = 100;

/** MAX conversations the widget lists for a visitor (their newest: it resumes the newest open one). */
export const WIDGET_CONVERSATIONS_PAGE = 20;

/** What the widget reads: its bot and a visitor's own conversations (settings: SettingsRepository). */
@Injectable()
export class WidgetRepository {
  constructor(private readonly prisma: PrismaService) {}

  bot(tenantId: string, botId: string): Promise<WidgetBotRow | null> {
    return this.prisma.bot.findFirst({ where: { tenantId, id: botId }, select: widgetBotSelect });
  }

  /**
   * The bot and, if it is this visitor's with this bot, the conversation, in one statement: every
   * message, stream and form of a visitor reads both (two queries cost ~1.2 ms of Prisma's CPU, one
   * raw statement ~0.3 ms). Undefined without the bot; conversation null for anyone else's.
   */
  async botAndConversation(
    tenantId: string,
    botId: string,
    visitorId: string,
    conversationId: string,
  ): Promise<{ bot: WidgetBotRow; conversation: ConversationRow | null } | undefined> {
    const [row] = await this.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT ${BOT_AND_CONVERSATION_COLUMNS}
      FROM "Bot" b
      LEFT JOIN "Conversation" c ON c."tenantId" = b."tenantId" AND c."botId" = b."id" AND c."visitorId" = ${visitorId}
        AND c."channel" = 'widget' AND c."id" = ${conversationId}::uuid
      WHERE b."tenantId" = ${tenantId}::uuid AND b."id" = ${botId}::uuid`;
    if (!row) return undefined;
    return {
      bot: prefixedFields(row, 'bot', widgetBotSelect) as WidgetBotRow,
      conversation: row['conversation.id'] ? (prefixedFields(row, 'conversation', conversationSelect) as ConversationRow) : null,
    };
  }

  /**
   * The visitor's own conversations with this bot, newest first: what a second device of a known
   * visitor resumes (the index on tenantId, visitorId, createdAt desc, id desc serves it).
   */
  visitorConversations(tenantId: string, botId: string, visitorId: string): Promise<ConversationRow[]> {
    return this.prisma.conversation.findMany({
      where: { tenantId, botId, visitorId, channel: 'widget' },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: WIDGET_CONVERSATIONS_PAGE,
      select: conversationSelect,
    });
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

/** Each field of both selects, named "bot.<field>" and "conversation.<field>" (their names overlap). */
const BOT_AND_CONVERSATION_COLUMNS = Prisma.join([prefixedColumns(widgetBotSelect, 'b', 'bot'), prefixedColumns(conversationSelect, 'c', 'conversation')]);
