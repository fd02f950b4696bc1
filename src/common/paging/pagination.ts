import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../validation/transforms';

export const MAX_PAGE_SIZE = 100;
export const MAX_OFFSET = 2_147_483_647;

/** `limit` and `offset` as every list endpoint takes them (API_DECISIONS, Pagination). */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: 'Page size.' })
  @IsOptional()
  @ToInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(MAX_PAGE_SIZE, { message: `must be at most ${MAX_PAGE_SIZE}` })
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0, description: 'Results to skip.' })
  @IsOptional()
  @ToInteger()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  @Max(MAX_OFFSET, { message: `must be at most ${MAX_OFFSET}` })
  offset?: number;
}

export interface Page {
  limit: number;
  offset: number;
}

/** SPEC 2.4. */
export class Pagination implements Page {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Matching results in all pages.' })
  total: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'The page size used.' })
  limit: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Results skipped.' })
  offset: number;

  @ApiProperty({ description: 'Whether more results follow: repeat with offset + limit while true.' })
  hasMore: boolean;
}

export function toPage(query: PageQueryDto, defaultLimit = 20): Page {
  return { limit: query.limit ?? defaultLimit, offset: query.offset ?? 0 };
}

export function toPagination(page: Page, total: number): Pagination {
  return { total, limit: page.limit, offset: page.offset, hasMore: page.offset + page.limit < total };
}
