import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService, PrismaTransaction } from '../database/prisma.service';

const tenantSettingsSelect = {
  timezone: true,
  allowedOrigins: true,
  visitorMessageLimit: true,
  visitorMessageWindowSeconds: true,
  leadCaptureEnabled: true,
  leadCaptureRequirePhone: true,
  leadCaptureRequireCompany: true,
  widgetRepliesPerIpPerDay: true,
  widgetRepliesPerDay: true,
  conversationRetentionDays: true,
  leadRetentionDays: true,
  // Read with the settings so the widget's session checks an identity token from the cached row
  // (TenantSettingsCache); the mapper answers only whether it exists.
  identitySecret: true,
  identityRequired: true,
} satisfies Prisma.TenantSelect;

const botSettingsSelect = {
  welcomeMessage: true,
  suggestedQuestions: true,
  fallbackMessage: true,
  showSources: true,
  synonyms: true,
  handoffEnabled: true,
  handoffOnFallback: true,
  handoffMessage: true,
} satisfies Prisma.BotSelect;

export type TenantSettingsRow = Prisma.TenantGetPayload<{ select: typeof tenantSettingsSelect }>;
/** The settings with the tenant's plan, which their defaults and bounds (widgetLimits.repliesPerDay) follow. */
export type TenantSettingsWithPlan = TenantSettingsRow & Prisma.TenantGetPayload<{ select: { plan: true } }>;
export type BotSettingsRow = Prisma.BotGetPayload<{ select: typeof botSettingsSelect }>;

/** The settings columns of tenants and bots; the rest of those rows belongs to their features. */
@Injectable()
export class SettingsRepository {
  constructor(private readonly prisma: PrismaService) {}

  tenantSettings(tenantId: string, tx: PrismaTransaction = this.prisma): Promise<TenantSettingsWithPlan | null> {
    return tx.tenant.findUnique({ where: { id: tenantId }, select: { ...tenantSettingsSelect, plan: true } });
  }

  updateTenantSettings(tenantId: string, changes: Partial<TenantSettingsRow>, tx: PrismaTransaction): Promise<TenantSettingsWithPlan> {
    return tx.tenant.update({ where: { id: tenantId }, data: changes, select: { ...tenantSettingsSelect, plan: true } });
  }

  botSettings(tenantId: string, botId: string, tx: PrismaTransaction = this.prisma): Promise<BotSettingsRow | null> {
    return tx.bot.findFirst({ where: { tenantId, id: botId }, select: botSettingsSelect });
  }

  updateBotSettings(tenantId: string, botId: string, changes: Partial<BotSettingsRow>, tx: PrismaTransaction): Promise<BotSettingsRow> {
    return tx.bot.update({ where: { id: botId, tenantId }, data: changes, select: botSettingsSelect });
  }
}
