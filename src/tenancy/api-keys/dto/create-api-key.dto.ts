import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDate, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { parseIsoDateTime } from '../../../common/validation/iso-date';
import { Trim } from '../../../common/validation/transforms';
import { ALL_SCOPES, Scope } from '../../../common/access/scopes';

/** Parses an ISO 8601 date-time with a time zone; anything else is left for @IsDate to reject. */
export const ToDateTime = () => Transform(({ value }) => parseIsoDateTime(value) ?? value);

export class CreateApiKeyDto {
  @Trim() @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must be 1 to 100 characters' }) @MaxLength(100, { message: 'must be 1 to 100 characters' })
  name!: string;

  @IsArray({ message: 'must be an array of scopes' }) @ArrayMaxSize(ALL_SCOPES.length, { message: `must have at most ${ALL_SCOPES.length} entries` })
  @IsIn(ALL_SCOPES, { each: true, message: `each entry must be one of ${ALL_SCOPES.join(', ')}` })
  /** Scopes of SPEC 5.3; a public key gets none in effect (it may only verify itself). */
  scopes!: Scope[];

  @IsOptional() @IsIn(['secret', 'public'], { message: 'must be secret or public' })
  /** `secret` by default. */
  type?: 'secret' | 'public';

  @IsOptional() @ToDateTime() @IsDate({ message: 'must be an ISO 8601 date-time with a time zone' })
  /** An ISO 8601 date-time with a time zone, in the future; the key is refused from then on. */
  expiresAt?: Date;
}
