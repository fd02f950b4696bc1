import { ApiProperty } from '@nestjs/swagger';
import { Pagination } from '../common/paging/pagination';
import type { KnowledgeDocumentRow, KnowledgeDocumentSummaryRow } from './knowledge-documents.repository';

export class KnowledgeDocumentSummaryResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  title: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Length of the content in characters (Unicode code points).' })
  characters: number;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', description: 'The last change of the title or the content.' })
  updatedAt: string;
}

export class KnowledgeDocumentResponse extends KnowledgeDocumentSummaryResponse {
  @ApiProperty({ description: 'The document’s text.' })
  content: string;
}

export class KnowledgeDocumentEnvelope {
  @ApiProperty({ type: KnowledgeDocumentResponse })
  document: KnowledgeDocumentResponse;
}

export class KnowledgeDocumentListResponse {
  @ApiProperty({ type: [KnowledgeDocumentSummaryResponse], description: 'Newest first; without their content.' })
  documents: KnowledgeDocumentSummaryResponse[];

  @ApiProperty({ type: Pagination })
  pagination: Pagination;
}

export function toKnowledgeDocumentSummaryResponse(row: KnowledgeDocumentSummaryRow): KnowledgeDocumentSummaryResponse {
  return {
    id: row.id,
    title: row.title,
    characters: row.characters,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toKnowledgeDocumentResponse(row: KnowledgeDocumentRow): KnowledgeDocumentResponse {
  return {
    id: row.id,
    title: row.title,
    characters: row.characters,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
