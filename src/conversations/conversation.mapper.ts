import type { ConversationRow, MessageRow } from './conversations.repository';

export interface ConversationResponse {
  id: string;
  botId: string;
  status: string;
  channel: string;
  visitorId: string | null;
  leadId: string | null;
  messageCount: number;
  lastMessageAt: string | null;
  endedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MessageResponse {
  id: string;
  conversationId: string;
  role: string;
  content: string;
  createdAt: string;
}

export function toConversationResponse(row: ConversationRow): ConversationResponse {
  return {
    id: row.id,
    botId: row.botId,
    status: row.status,
    channel: row.channel,
    visitorId: row.visitorId,
    leadId: row.leadId,
    messageCount: row.messageCount,
    lastMessageAt: row.lastMessageAt?.toISOString() ?? null,
    endedAt: row.endedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toMessageResponse(row: MessageRow): MessageResponse {
  return {
    id: row.id,
    conversationId: row.conversationId,
    role: row.role,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
  };
}
