import { ApiProperty } from '@nestjs/swagger';
import type { BotRow } from './bots.repository';

/** A bot (SPEC 2.1). */
export class BotResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'Whether the bot is active and reachable by visitors; inactive bots are listed too.' })
  isActive: boolean;

  @ApiProperty({ type: String, format: 'uri', nullable: true, description: 'URL of the avatar image; null when none is set.' })
  avatarUrl: string | null;

  @ApiProperty({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'Primary colour as a hex value.', example: '#2563eb' })
  primaryColor: string;

  @ApiProperty({ pattern: '^[a-z]{2}$', description: 'ISO 639-1 language code.', example: 'en' })
  language: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Messages in all of the bot’s conversations.' })
  messageCount: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  conversationCount: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Documents in the knowledge base.' })
  knowledgeBaseSize: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class BotListResponse {
  @ApiProperty({ type: [BotResponse], description: 'All bots of the tenant, oldest first.' })
  bots: BotResponse[];
}

export class BotEnvelope {
  @ApiProperty({ type: BotResponse })
  bot: BotResponse;
}

export function toBotResponse(row: BotRow): BotResponse {
  return {
    id: row.id,
    name: row.name,
    isActive: row.isActive,
    avatarUrl: row.avatarUrl,
    primaryColor: row.primaryColor,
    language: row.language,
    messageCount: row.messageCount,
    conversationCount: row.conversationCount,
    knowledgeBaseSize: row.knowledgeBaseSize,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
