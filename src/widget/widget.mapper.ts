import { ApiProperty } from '@nestjs/swagger';
import { ConversationResponse, MessageResponse } from '../conversations/conversation.mapper';
import { LeadResponse } from '../leads/lead.mapper';
import { LeadCapture } from '../settings/settings.mapper';
import type { TenantSettingsRow } from '../settings/settings.repository';
import type { WidgetBotRow } from './widget.repository';

export class WidgetHandoff {
  @ApiProperty({ description: 'The widget offers “talk to a person” (`POST .../handoff`).' })
  enabled: boolean;

  @ApiProperty({ description: 'What the widget shows once a person is asked for.' })
  message: string;
}

export class WidgetBot {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ type: String, nullable: true })
  avatarUrl: string | null;

  @ApiProperty({ example: '#2563eb' })
  primaryColor: string;

  @ApiProperty({ example: 'en', description: 'ISO 639-1.' })
  language: string;

  @ApiProperty({ type: String, nullable: true })
  welcomeMessage: string | null;

  @ApiProperty({ type: [String] })
  suggestedQuestions: string[];

  @ApiProperty({ type: LeadCapture })
  leadCapture: LeadCapture;

  @ApiProperty({ type: WidgetHandoff })
  handoff: WidgetHandoff;
}

export class WidgetBotEnvelope {
  @ApiProperty({ type: WidgetBot })
  bot: WidgetBot;
}

export class WidgetSession {
  @ApiProperty({ description: 'Send it as `X-Visitor-Token` on every later call. Valid 24 hours.' })
  visitorToken: string;

  @ApiProperty({ description: 'Keep it (e.g. in localStorage) to resume the visitor in a later session.' })
  visitorId: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}

export class WidgetMessages {
  @ApiProperty({ type: [MessageResponse], description: 'Oldest first; at most 100.' })
  messages: MessageResponse[];
}

export class WidgetConversations {
  @ApiProperty({ type: [ConversationResponse], description: 'The visitor’s own conversations with the token’s bot, newest first; at most 20.' })
  conversations: ConversationResponse[];
}

export class WidgetConversationEnvelope {
  @ApiProperty({ type: ConversationResponse })
  conversation: ConversationResponse;
}

export class WidgetLeadEnvelope {
  @ApiProperty({ type: LeadResponse })
  lead: LeadResponse;
}

export function toWidgetBot(bot: WidgetBotRow, settings: TenantSettingsRow): WidgetBot {
  return {
    id: bot.id,
    name: bot.name,
    avatarUrl: bot.avatarUrl,
    primaryColor: bot.primaryColor,
    language: bot.language,
    welcomeMessage: bot.welcomeMessage,
    suggestedQuestions: [...bot.suggestedQuestions],
    leadCapture: { enabled: settings.leadCaptureEnabled, requirePhone: settings.leadCaptureRequirePhone, requireCompany: settings.leadCaptureRequireCompany },
    handoff: { enabled: bot.handoffEnabled, message: bot.handoffMessage },
  };
}
