import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../database/prisma.service';
import { prefixedColumns, prefixedFields } from '../../database/select-columns';
import { conversationSelect, type ConversationRow } from '../conversations.repository';

/** What the API channel reads of a bot: whether it answers, its welcome, and what a turn needs. */
const channelBotSelect = {
  id: true,
  isActive: true,
  welcomeMessage: true,
  language: true,
  knowledgeVersion: true,
  fallbackMessage: true,
  showSources: true,
  synonyms: true,
  handoffEnabled: true,
  handoffOnFallback: true,
} satisfies Prisma.BotSelect;

export type ChannelBotRow = Prisma.BotGetPayload<{ select: typeof channelBotSelect }>;

const CONVERSATION_AND_BOT_COLUMNS = Prisma.join([prefixedColumns(conversationSelect, 'c', 'conversation'), prefixedColumns(channelBotSelect, 'b', 'bot')]);

/** The API channel's reads: the bot a conversation opens with, and an API conversation with its bot. */
@Injectable()
export class ApiChannelRepository {
  constructor(private readonly prisma: PrismaService) {}

  bot(tenantId: string, botId: string): Promise<ChannelBotRow | null> {
    return this.prisma.bot.findFirst({ where: { tenantId, id: botId }, select: channelBotSelect });
  }

  /**
   * The tenant's conversation of the API channel and its bot, in one statement (each message reads
   * both: the widget's lesson, two Prisma queries cost four times one raw one). Null for any other.
   */
  async conversationAndBot(tenantId: string, conversationId: string): Promise<{ conversation: ConversationRow; bot: ChannelBotRow } | null> {
    const [row] = await this.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT ${CONVERSATION_AND_BOT_COLUMNS}
      FROM "Conversation" c
      JOIN "Bot" b ON b."tenantId" = c."tenantId" AND b."id" = c."botId"
      WHERE c."tenantId" = ${tenantId}::uuid AND c."id" = ${conversationId}::uuid AND c."channel" = 'api'`;
    if (!row) return null;
    return {
      conversation: prefixedFields(row, 'conversation', conversationSelect) as ConversationRow,
      bot: prefixedFields(row, 'bot', channelBotSelect) as ChannelBotRow,
    };
  }
}
