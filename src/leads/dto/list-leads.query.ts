import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Validate } from 'class-validator';
import { DateRangePageQueryDto } from '../../common/paging/date-range';
import { CodePointLength } from '../../common/validation/code-point-length';

export class ListLeadsQueryDto extends DateRangePageQueryDto {
  /** Only the leads of this bot (a bot of another tenant gives an empty page). */
  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  botId?: string;

  /** Case-insensitive substring of the name, e-mail or company; `%`, `_` and `\` match themselves. */
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 200])
  search?: string;
}
