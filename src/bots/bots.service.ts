import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { previousAttributesOf } from '../events/previous-attributes';
import { PLANS } from '../tenancy/plans';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { toBotResponse } from './bot.mapper';
import { BotRow, BotSettings, BotsRepository } from './bots.repository';

@Injectable()
export class BotsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly bots: BotsRepository,
    private readonly tenants: TenantsRepository,
    private readonly events: EventRecorder,
  ) {}

  listBots(tenantId: string): Promise<BotRow[]> {
    return this.bots.list(tenantId);
  }

  async getBot(tenantId: string, botId: string): Promise<BotRow> {
    const bot = await this.bots.findById(tenantId, botId);
    if (!bot) throw new NotFoundError('Bot');
    return bot;
  }

  /** Creates a bot within the plan's botsLimit (403 PLAN_LIMIT_REACHED beyond it). */
  async createBot(tenantId: string, settings: BotSettings & { name: string }, actor: Actor): Promise<BotRow> {
    return this.prisma.$transaction(async (tx) => {
      // Two concurrent creates must not both see room for one more bot.
      await this.tenants.lock(tenantId, tx);
      const tenant = await this.tenants.findById(tenantId, tx);
      if (!tenant) throw new NotFoundError('Tenant');
      const limit = PLANS[tenant.plan].botsLimit;
      if ((await this.bots.count(tenantId, tx)) >= limit) {
        throw new AppError(ErrorCode.PLAN_LIMIT_REACHED, `The ${tenant.plan} plan allows ${limit} bot(s). Upgrade to add more.`);
      }
      const bot = await this.bots.create(tenantId, settings, tx);
      await this.events.record(tx, tenantId, actor, {
        action: 'bot.created',
        targetId: bot.id,
        data: { name: bot.name, isActive: bot.isActive },
      });
      return bot;
    });
  }

  /** Changes settings; switching isActive is the dashboard's toggle (SPEC 3.1) and is audited. */
  async updateBot(tenantId: string, botId: string, settings: BotSettings, actor: Actor): Promise<BotRow> {
    return this.prisma.$transaction(async (tx) => {
      const before = await this.bots.findById(tenantId, botId, tx);
      if (!before) throw new NotFoundError('Bot');
      const after = await this.bots.update(tenantId, botId, settings, tx);
      if (!after) throw new NotFoundError('Bot');
      if (before.isActive !== after.isActive) {
        await this.events.record(tx, tenantId, actor, { action: after.isActive ? 'bot.activated' : 'bot.deactivated', targetId: botId });
      }
      const changes = changedSettings(before, after);
      if (Object.keys(changes).length) await this.events.record(tx, tenantId, actor, { action: 'bot.updated', targetId: botId, data: { changes } });
      const previousAttributes = previousAttributesOf(toBotResponse(before), toBotResponse(after));
      if (previousAttributes) await this.events.publish(tx, tenantId, { type: 'bot.updated', object: toBotResponse(after), previousAttributes });
      return after;
    });
  }
}

const AUDITED_SETTINGS = ['name', 'avatarUrl', 'primaryColor', 'language'] as const;

/** The audited settings a change altered, each as `{ from, to }` (the state toggle is its own event). */
function changedSettings(before: BotRow, after: BotRow): Record<string, { from: string | null; to: string | null }> {
  const changed = AUDITED_SETTINGS.filter((field) => before[field] !== after[field]);
  return Object.fromEntries(changed.map((field) => [field, { from: before[field], to: after[field] }]));
}
