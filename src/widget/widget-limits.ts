import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { VisitorPrincipal } from '../common/http/request-context';
import { retryAfter } from '../common/http/retry-after';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { isOver, RATE_LIMIT_STORE, type RateLimitStore, type WindowUsage } from '../rate-limit/rate-limit.store';
import type { TenantSettingsRow } from '../settings/settings.repository';

const DAY_MS = 86_400_000;

/**
 * The widget's own limits (API_DECISIONS, Widget, and part 3's fixes), counted in the shared
 * rate-limit store so that every instance sees the same counts: new sessions per client IP a
 * minute, messages per visitor (the tenant's visitorMessageLimit), and replies per client IP a
 * (UTC) day (the tenant's widgetLimits). Client IPs arrive as clientIp() gives them: IPv6 by /64.
 * Each refusal is 429 RATE_LIMIT_EXCEEDED with Retry-After.
 */
@Injectable()
export class WidgetLimits {
  private readonly sessionsPerMinute: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
  ) {
    this.sessionsPerMinute = config.rateLimit.widgetSessionsPerMinute * config.rateLimit.multiplier;
  }

  /** New sessions mint visitor ids: without this limit one address could mint a fresh per-visitor quota at will. */
  async countSession(clientIp: string): Promise<void> {
    const [usage] = await this.store.hit(`widget-sessions:${clientIp}`, [{ name: 'sessions', limit: this.sessionsPerMinute, ttlMs: 60_000 }]);
    if (isOver(usage)) throw tooMany(usage, `Too many new widget sessions from this address: ${usage.limit} a minute.`);
  }

  async countVisitorMessage(settings: TenantSettingsRow, visitor: VisitorPrincipal): Promise<void> {
    const [usage] = await this.store.hit(`visitor:${visitor.tenantId}:${visitor.botId}:${visitor.visitorId}`, [
      { name: 'visitor', limit: settings.visitorMessageLimit, ttlMs: settings.visitorMessageWindowSeconds * 1000 },
    ]);
    if (isOver(usage)) throw tooMany(usage, `Too many messages: ${usage.limit} per ${settings.visitorMessageWindowSeconds} seconds for each visitor.`);
  }

  /** Per tenant and address, so that one site's visitors never use up another tenant's allowance. */
  async countReply(tenantId: string, settings: TenantSettingsRow, clientIp: string): Promise<void> {
    const [usage] = await this.store.hit(`widget-replies:${tenantId}:${clientIp}`, [
      { name: 'replies-per-day', limit: settings.widgetRepliesPerIpPerDay, ttlMs: DAY_MS },
    ]);
    if (isOver(usage)) throw tooMany(usage, `Too many messages from this address today: ${usage.limit} a day (settings: widgetLimits.repliesPerIpPerDay).`);
  }
}

function tooMany(usage: WindowUsage, message: string): AppError {
  return new AppError(ErrorCode.RATE_LIMIT_EXCEEDED, `${message} Retry after the time in Retry-After.`, undefined, retryAfter(usage.resetAt - usage.now));
}
