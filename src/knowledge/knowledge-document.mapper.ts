import { ApiProperty } from '@nestjs/swagger';
import type { KnowledgeDocumentRow } from './knowledge-documents.repository';

export class KnowledgeDocumentResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  botId: string;

  @ApiProperty()
  title: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class KnowledgeDocumentEnvelope {
  @ApiProperty({ type: KnowledgeDocumentResponse })
  document: KnowledgeDocumentResponse;
}

export function toKnowledgeDocumentResponse(row: KnowledgeDocumentRow): KnowledgeDocumentResponse {
  return { id: row.id, botId: row.botId, title: row.title, createdAt: row.createdAt.toISOString() };
}
