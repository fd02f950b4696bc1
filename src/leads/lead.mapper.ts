import type { LeadRow } from './leads.repository';

export interface LeadResponse {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  company: string | null;
  message: string | null;
  botId: string | null;
  conversationId: string | null;
  source: string;
  status: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export function toLeadResponse(row: LeadRow): LeadResponse {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    company: row.company,
    message: row.message,
    botId: row.botId,
    conversationId: row.conversationId,
    source: row.source,
    status: row.status,
    tags: [...row.tags],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
