import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../common/errors/app-error';
import { assertSomethingSent, changedFields } from '../common/validation/changed-fields';
import { DatabaseTimeZones } from '../database/database-time-zones';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { InvalidationBus } from '../invalidation/invalidation-bus';
import type { UpdateBotSettingsDto } from './dto/update-bot-settings.dto';
import type { UpdateTenantSettingsDto } from './dto/update-tenant-settings.dto';
import { PLANS } from '../tenancy/plans';
import { BotSettingsRow, SettingsRepository, TenantSettingsRow, TenantSettingsWithPlan } from './settings.repository';

/**
 * The tenant's settings (time zone, widget origins, visitor limit, lead form, widget limits) and each bot's
 * (welcome, suggestions, fallback, sources). A change is written, and audited with the key as the
 * actor, only when a value differs: a PATCH with the current values leaves everything as it is.
 */
@Injectable()
export class SettingsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly settings: SettingsRepository,
    private readonly events: EventRecorder,
    private readonly timeZones: DatabaseTimeZones,
    private readonly bus: InvalidationBus,
  ) {}

  async getTenantSettings(tenantId: string): Promise<TenantSettingsWithPlan> {
    return (await this.settings.tenantSettings(tenantId))!;
  }

  async updateTenantSettings(tenantId: string, body: UpdateTenantSettingsDto, actor: Actor): Promise<TenantSettingsWithPlan> {
    assertSomethingSent(body);
    // ICU (the DTO's check) knows names the database does not; analytics needs both to.
    if (body.timezone !== undefined && !(await this.timeZones.has(body.timezone))) {
      throw ValidationError.field('timezone', 'must be an IANA time zone name such as Europe/Berlin or UTC');
    }
    let changed = false;
    const settings = await this.prisma.$transaction(async (tx) => {
      const current = (await this.settings.tenantSettings(tenantId, tx))!;
      const repliesPerDay = body.widgetLimits?.repliesPerDay;
      // The day's replies come out of the month's: more than the month would never be reached.
      if (typeof repliesPerDay === 'number' && repliesPerDay > PLANS[current.plan].messagesLimit) {
        throw ValidationError.field('widgetLimits.repliesPerDay', `must be at most ${PLANS[current.plan].messagesLimit} (the plan's messages a month)`);
      }
      // Required without a secret would refuse every visitor: no token could be valid.
      if (body.identityVerification?.required === true && current.identitySecret === null) {
        throw ValidationError.field('identityVerification.required', 'can be true only with an identity secret (POST /api/v1/identity-secret first)');
      }
      const changes = changedFields<TenantSettingsRow>(current, {
        timezone: body.timezone,
        allowedOrigins: body.allowedOrigins && [...new Set(body.allowedOrigins)],
        visitorMessageLimit: body.visitorMessageLimit?.messages,
        visitorMessageWindowSeconds: body.visitorMessageLimit?.windowSeconds,
        leadCaptureEnabled: body.leadCapture?.enabled,
        leadCaptureRequirePhone: body.leadCapture?.requirePhone,
        leadCaptureRequireCompany: body.leadCapture?.requireCompany,
        widgetRepliesPerIpPerDay: body.widgetLimits?.repliesPerIpPerDay,
        widgetRepliesPerDay: repliesPerDay,
        conversationRetentionDays: body.retention?.conversationDays,
        leadRetentionDays: body.retention?.leadDays,
        identityRequired: body.identityVerification?.required,
      });
      if (!Object.keys(changes).length) return current;
      const updated = await this.settings.updateTenantSettings(tenantId, changes, tx);
      await this.events.record(tx, tenantId, actor, { action: 'settings.updated', targetId: tenantId, data: { changes } });
      changed = true;
      return updated;
    });
    // Committed: the widget's cached settings (TenantSettingsCache) are dropped on every instance.
    if (changed) await this.bus.tenantChanged(tenantId);
    return settings;
  }

  async getBotSettings(tenantId: string, botId: string): Promise<BotSettingsRow> {
    const settings = await this.settings.botSettings(tenantId, botId);
    if (!settings) throw new NotFoundError('Bot');
    return settings;
  }

  async updateBotSettings(tenantId: string, botId: string, body: UpdateBotSettingsDto, actor: Actor): Promise<BotSettingsRow> {
    assertSomethingSent(body);
    return this.prisma.$transaction(async (tx) => {
      const current = await this.settings.botSettings(tenantId, botId, tx);
      if (!current) throw new NotFoundError('Bot');
      const changes = changedFields<BotSettingsRow>(current, {
        welcomeMessage: body.welcomeMessage === undefined ? undefined : body.welcomeMessage || null,
        suggestedQuestions: body.suggestedQuestions,
        fallbackMessage: body.fallbackMessage,
        showSources: body.showSources,
        synonyms: body.synonyms,
        handoffEnabled: body.handoff?.enabled,
        handoffOnFallback: body.handoff?.onFallback,
        handoffMessage: body.handoff?.message,
      });
      if (!Object.keys(changes).length) return current;
      const updated = await this.settings.updateBotSettings(tenantId, botId, changes, tx);
      await this.events.record(tx, tenantId, actor, { action: 'bot.settings_updated', targetId: botId, data: { changes } });
      return updated;
    });
  }
}
