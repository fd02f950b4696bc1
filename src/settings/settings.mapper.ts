import { ApiProperty } from '@nestjs/swagger';
import type { BotSettingsRow, TenantSettingsWithPlan } from './settings.repository';
import { widgetRepliesPerDay } from './widget-replies-per-day';

export class VisitorMessageLimit {
  @ApiProperty({ minimum: 1, maximum: 1000, description: 'Messages one visitor may send per window.' })
  messages: number;

  @ApiProperty({ minimum: 1, maximum: 86400, description: 'The window, in seconds.' })
  windowSeconds: number;
}

export class LeadCapture {
  @ApiProperty({ description: 'The widget offers the lead form.' })
  enabled: boolean;

  @ApiProperty({ description: 'The lead form requires a phone number.' })
  requirePhone: boolean;

  @ApiProperty({ description: 'The lead form requires a company.' })
  requireCompany: boolean;
}

export class WidgetLimits {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 100000,
    description: 'Bot replies the widget gives one client address (IPv6: one /64) per UTC day; beyond, 429.',
  })
  repliesPerIpPerDay: number;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description:
      "Bot replies the widget gives the whole tenant per UTC day, in force now: the tenant's own number, or by default a tenth of the plan's messages a month (rounded up); at most the plan's messages a month. Beyond, a visitor's message is 429 `MESSAGE_LIMIT_REACHED` with `Retry-After` up to the next midnight UTC, and nothing is stored.",
  })
  repliesPerDay: number;

  @ApiProperty({ description: "`repliesPerDay` is the plan's default (it follows the plan); false: the tenant set it." })
  repliesPerDayIsDefault: boolean;
}

export class Retention {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 30,
    maximum: 3650,
    description: "Days after a conversation's last message before the hourly sweep deletes it with its messages; null: kept for ever.",
  })
  conversationDays: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 30,
    maximum: 3650,
    description: 'Days after its creation before the hourly sweep deletes a lead; null: kept for ever.',
  })
  leadDays: number | null;
}

export class IdentityVerification {
  @ApiProperty({ description: 'An identity secret exists (`POST /api/v1/identity-secret`); read-only: the secret itself is never shown again.' })
  configured: boolean;

  @ApiProperty({
    description:
      'A widget session without an `identityToken` is refused (401 `IDENTITY_REQUIRED`). May be true only with a secret; deleting the secret sets it back to false.',
  })
  required: boolean;
}

export class TenantSettings {
  @ApiProperty({ example: 'UTC', description: 'IANA time zone name; analytics periods are days, weeks and months in it.' })
  timezone: string;

  @ApiProperty({ type: [String], example: ['https://www.example.com'], description: 'Origins the widget may run on; empty: any origin.' })
  allowedOrigins: string[];

  @ApiProperty({ type: VisitorMessageLimit })
  visitorMessageLimit: VisitorMessageLimit;

  @ApiProperty({ type: LeadCapture })
  leadCapture: LeadCapture;

  @ApiProperty({ type: WidgetLimits })
  widgetLimits: WidgetLimits;

  @ApiProperty({ type: Retention })
  retention: Retention;

  @ApiProperty({ type: IdentityVerification, description: 'Known visitors: identity tokens the tenant’s back end signs (docs/known-visitors.md).' })
  identityVerification: IdentityVerification;
}

export class TenantSettingsEnvelope {
  @ApiProperty({ type: TenantSettings })
  settings: TenantSettings;
}

export class HandoffSettings {
  @ApiProperty({ description: 'The visitor may ask for a person (the widget shows “talk to a person”).' })
  enabled: boolean;

  @ApiProperty({ description: 'With `enabled`: a question the knowledge base cannot answer hands the conversation to a person, after the fallback message.' })
  onFallback: boolean;

  @ApiProperty({ description: 'What the widget shows once the conversation is handed to a person.' })
  message: string;
}

export class BotSettings {
  @ApiProperty({ type: String, nullable: true, description: 'The first message of every widget conversation; null: none.' })
  welcomeMessage: string | null;

  @ApiProperty({ type: [String], description: 'Questions the widget offers as buttons.' })
  suggestedQuestions: string[];

  @ApiProperty({ description: 'The reply when nothing in the knowledge base fits the question.' })
  fallbackMessage: string;

  @ApiProperty({ description: 'Replies list the knowledge documents they come from.' })
  showSources: boolean;

  @ApiProperty({ type: [String], description: 'The bot\'s own synonyms, one group per entry ("bill = invoice, receipt").' })
  synonyms: string[];

  @ApiProperty({ type: HandoffSettings })
  handoff: HandoffSettings;
}

export class BotSettingsEnvelope {
  @ApiProperty({ type: BotSettings })
  settings: BotSettings;
}

export function toTenantSettings(row: TenantSettingsWithPlan): TenantSettings {
  return {
    timezone: row.timezone,
    allowedOrigins: [...row.allowedOrigins],
    visitorMessageLimit: { messages: row.visitorMessageLimit, windowSeconds: row.visitorMessageWindowSeconds },
    leadCapture: { enabled: row.leadCaptureEnabled, requirePhone: row.leadCaptureRequirePhone, requireCompany: row.leadCaptureRequireCompany },
    widgetLimits: {
      repliesPerIpPerDay: row.widgetRepliesPerIpPerDay,
      repliesPerDay: widgetRepliesPerDay(row, row.plan),
      repliesPerDayIsDefault: row.widgetRepliesPerDay === null,
    },
    retention: { conversationDays: row.conversationRetentionDays, leadDays: row.leadRetentionDays },
    // Required counts only with a secret (as the widget reads it): a PATCH racing the secret's deletion cannot lock visitors out.
    identityVerification: { configured: row.identitySecret !== null, required: row.identityRequired && row.identitySecret !== null },
  };
}

export function toBotSettings(row: BotSettingsRow): BotSettings {
  return {
    welcomeMessage: row.welcomeMessage,
    suggestedQuestions: [...row.suggestedQuestions],
    fallbackMessage: row.fallbackMessage,
    showSources: row.showSources,
    synonyms: [...row.synonyms],
    handoff: { enabled: row.handoffEnabled, onFallback: row.handoffOnFallback, message: row.handoffMessage },
  };
}
