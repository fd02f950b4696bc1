import { ApiProperty } from '@nestjs/swagger';
import { ConversationResponse, MessageResponse, toConversationResponse, toMessageResponse } from '../conversations/conversation.mapper';
import type { ConversationRow, MessageRow } from '../conversations/conversations.repository';
import { PrivacyErasureStatus } from '../generated/prisma/enums';
import { LeadResponse, toLeadResponse } from '../leads/lead.mapper';
import type { LeadRow } from '../leads/leads.repository';
import type { ErasureRow } from './erasures.repository';

export class ExportedConversation extends ConversationResponse {
  @ApiProperty({ type: [MessageResponse], description: 'Oldest first.' })
  messages: MessageResponse[];
}

export class PersonExportResponse {
  @ApiProperty({ type: [LeadResponse], description: 'Oldest first.' })
  leads: LeadResponse[];

  @ApiProperty({ type: [ExportedConversation], description: 'Oldest first, each with its messages.' })
  conversations: ExportedConversation[];
}

export class ErasureCounts {
  @ApiProperty({ type: 'integer', minimum: 0 })
  leads: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  conversations: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  messages: number;
}

export class ErasureResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: Object.values(PrivacyErasureStatus), enumName: 'ErasureStatus' })
  status: PrivacyErasureStatus;

  @ApiProperty({ type: ErasureCounts, description: 'What the erasure removes, as found when it was requested.' })
  counts: ErasureCounts;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completedAt: string | null;
}

export class ErasureEnvelope {
  @ApiProperty({ type: ErasureResponse })
  erasure: ErasureResponse;
}

export function toErasureResponse(row: ErasureRow): ErasureResponse {
  return {
    id: row.id,
    status: row.status,
    counts: { leads: row.leadCount, conversations: row.conversationCount, messages: row.messageCount },
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

export function toPersonExport(leads: LeadRow[], conversations: ConversationRow[], messages: MessageRow[]): PersonExportResponse {
  return {
    leads: leads.map(toLeadResponse),
    conversations: conversations.map((conversation) => ({
      ...toConversationResponse(conversation),
      messages: messages.filter((message) => message.conversationId === conversation.id).map(toMessageResponse),
    })),
  };
}
