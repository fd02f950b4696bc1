import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ToInteger } from '../validation/transforms';

export const MAX_PAGE_SIZE = 100;
export const MAX_OFFSET = 2_147_483_647;

/** `limit` and `offset` as every list endpoint takes them (API_DECISIONS, Pagination). */
export class PageQueryDto {
  @IsOptional() @ToInteger() @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' }) @Max(MAX_PAGE_SIZE, { message: `must be at most ${MAX_PAGE_SIZE}` })
  limit?: number;

  @IsOptional() @ToInteger() @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' }) @Max(MAX_OFFSET, { message: `must be at most ${MAX_OFFSET}` })
  offset?: number;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface Pagination extends Page {
  total: number;
  hasMore: boolean;
}

export function toPage(query: PageQueryDto, defaultLimit = 20): Page {
  return { limit: query.limit ?? defaultLimit, offset: query.offset ?? 0 };
}

export function toPagination(page: Page, total: number): Pagination {
  return { total, limit: page.limit, offset: page.offset, hasMore: page.offset + page.limit < total };
}

/** Query of endpoints that take no parameters: any parameter is an unknown one. */
export class NoQueryDto {}
