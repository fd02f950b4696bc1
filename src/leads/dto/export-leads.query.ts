import { OmitType } from '@nestjs/swagger';
import { ListLeadsQueryDto } from './list-leads.query';

/** The list's filters; an export has no pages, so `limit` and `offset` are unknown fields. */
export class ExportLeadsQueryDto extends OmitType(ListLeadsQueryDto, ['limit', 'offset'] as const) {}
