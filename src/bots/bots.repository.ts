import { Injectable } from '@nestjs/common';
import { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';
import { selectColumns } from '../database/select-columns';

export const botSelect = {
  id: true,
  name: true,
  isActive: true,
  avatarUrl: true,
  primaryColor: true,
  language: true,
  messageCount: true,
  conversationCount: true,
  knowledgeBaseSize: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.BotSelect;

export type BotRow = Prisma.BotGetPayload<{ select: typeof botSelect }>;

const BOT_COLUMNS = selectColumns(botSelect);

export interface BotSettings {
  name?: string;
  isActive?: boolean;
  avatarUrl?: string | null;
  primaryColor?: string;
  language?: string;
}

@Injectable()
export class BotsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** $queryRaw: the bots list 697 -> 632 µs of CPU against the typed findMany (npm run bench:compare). */
  list(tenantId: string): Promise<BotRow[]> {
    return this.prisma.$queryRaw<BotRow[]>`SELECT ${BOT_COLUMNS} FROM "Bot" WHERE "tenantId" = ${tenantId}::uuid ORDER BY "createdAt", "id"`;
  }

  findById(tenantId: string, botId: string, tx: PrismaTransaction = this.prisma): Promise<BotRow | null> {
    return tx.bot.findFirst({ where: { tenantId, id: botId }, select: botSelect });
  }

  exists(tenantId: string, botId: string, tx: PrismaTransaction = this.prisma): Promise<boolean> {
    return tx.bot.count({ where: { tenantId, id: botId } }).then((count) => count > 0);
  }

  /** Which of these ids are the tenant's bots. */
  async existingIds(tenantId: string, botIds: string[], tx: PrismaTransaction = this.prisma): Promise<string[]> {
    return (await tx.bot.findMany({ where: { tenantId, id: { in: botIds } }, select: { id: true } })).map((bot) => bot.id);
  }

  count(tenantId: string, tx: PrismaTransaction = this.prisma): Promise<number> {
    return tx.bot.count({ where: { tenantId } });
  }

  create(tenantId: string, data: BotSettings & { name: string }, tx: PrismaTransaction = this.prisma): Promise<BotRow> {
    return tx.bot.create({ data: { tenantId, ...data }, select: botSelect });
  }

  async update(tenantId: string, botId: string, data: BotSettings, tx: PrismaTransaction = this.prisma): Promise<BotRow | null> {
    const { count } = await tx.bot.updateMany({ where: { tenantId, id: botId }, data });
    return count ? this.findById(tenantId, botId, tx) : null;
  }
}
