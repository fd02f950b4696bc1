import type { BotRow } from './bots.repository';

export interface BotResponse {
  id: string;
  name: string;
  isActive: boolean;
  avatarUrl: string | null;
  primaryColor: string;
  language: string;
  messageCount: number;
  conversationCount: number;
  knowledgeBaseSize: number;
  createdAt: string;
  updatedAt: string;
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

export interface KnowledgeDocumentResponse {
  id: string;
  botId: string;
  title: string;
  createdAt: string;
}

export function toKnowledgeDocumentResponse(row: { id: string; botId: string; title: string; createdAt: Date }): KnowledgeDocumentResponse {
  return { id: row.id, botId: row.botId, title: row.title, createdAt: row.createdAt.toISOString() };
}
