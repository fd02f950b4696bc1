import { IsString, MaxLength, MinLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

export class RenameTenantDto {
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must be 1 to 200 characters' })
  @MaxLength(200, { message: 'must be 1 to 200 characters' })
  name!: string;
}
