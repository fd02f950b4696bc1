import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Pagination } from '../common/paging/pagination';
import { LeadSource, LeadStatus } from '../generated/prisma/enums';
import type { LeadRow } from './leads.repository';

/** A lead (SPEC 2.2); optional contact fields not given are null. */
export class LeadResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ type: String, nullable: true })
  phone: string | null;

  @ApiProperty({ type: String, nullable: true })
  company: string | null;

  @ApiProperty({ type: String, nullable: true })
  message: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The bot the lead belongs to; null for an API lead created without one.' })
  botId: string | null;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The conversation that captured the lead; null for leads created through the API.',
  })
  conversationId: string | null;

  @ApiProperty({
    enum: Object.values(LeadSource),
    enumName: 'LeadSource',
    description: '`widget` (captured in a chat), `api` (created through the API) or `import`.',
  })
  source: LeadSource;

  @ApiProperty({ enum: Object.values(LeadStatus), enumName: 'LeadStatus', description: 'A new lead is `new`; see PATCH /api/v1/leads/{id} for the moves.' })
  status: LeadStatus;

  @ApiProperty({ type: [String], description: 'Empty when none were given.' })
  tags: string[];

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class LeadListResponse {
  @ApiProperty({ type: [LeadResponse], description: 'Newest first.' })
  leads: LeadResponse[];

  @ApiProperty({ type: Pagination })
  pagination: Pagination;
}

export class LeadEnvelope {
  @ApiProperty({ type: LeadResponse })
  lead: LeadResponse;
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

export class ImportLeadsResponse {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000, description: 'How many leads were created.' })
  imported: number;

  @ApiPropertyOptional({ type: [LeadResponse], description: 'The created leads, in the order sent; only for a key that also has `leads:read`.' })
  leads?: LeadResponse[];
}
