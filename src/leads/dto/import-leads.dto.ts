import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { CreateLeadDto } from './create-lead.dto';

export const IMPORT_MAX_LEADS = 1_000;

export class ImportLeadsDto {
  /** Each entry as the body of POST /api/v1/leads; an invalid one is named in the details as `leads[i].field`. */
  @ApiProperty({ type: [CreateLeadDto], minItems: 1, maxItems: IMPORT_MAX_LEADS })
  @IsArray({ message: 'must be an array of leads' })
  @ArrayMinSize(1, { message: 'must have at least 1 entry' })
  @ArrayMaxSize(IMPORT_MAX_LEADS, { message: `must have at most ${IMPORT_MAX_LEADS} entries` })
  @ValidateNested({ each: true, message: 'each entry must be a lead object' })
  @Type(() => CreateLeadDto)
  leads!: CreateLeadDto[];
}
