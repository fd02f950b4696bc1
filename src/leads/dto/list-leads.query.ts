import { IsOptional, IsString, IsUUID, Validate } from 'class-validator';
import { DateRangePageQueryDto } from '../../common/paging/date-range';
import { CodePointLength } from './create-lead.dto';

export class ListLeadsQueryDto extends DateRangePageQueryDto {
  @IsOptional() @IsUUID('all', { message: 'must be a UUID' })
  botId?: string;

  @IsOptional() @IsString({ message: 'must be a string' }) @Validate(CodePointLength, [1, 200])
  search?: string;
}
