import { Transform } from 'class-transformer';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDate, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { OptionalNotNull } from '../../../common/validation/optional-not-null';
import { parseIsoDateTime } from '../../../common/validation/iso-date';
import { Trim } from '../../../common/validation/transforms';
import { ALL_SCOPES, Scope } from '../../../common/access/scopes';
import type { CreateKeyInput } from '../api-keys.service';

/** Parses an ISO 8601 date-time with a time zone; anything else is left for @IsDate to reject. */
export const ToDateTime = () => Transform(({ value }) => parseIsoDateTime(value) ?? value);

export class CreateApiKeyDto {
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must be 1 to 100 characters' })
  @MaxLength(100, { message: 'must be 1 to 100 characters' })
  name!: string;

  @ApiPropertyOptional({
    type: [String],
    enum: ALL_SCOPES,
    minItems: 0,
    maxItems: ALL_SCOPES.length,
    description:
      'Scopes of SPEC 5.3, repeats ignored. Required for a secret key, and may be empty: such a key can call only `GET /api/v1/verify`. A public key takes none: leave it out (or send `[]`; any scope is a 400); it may call verify and the widget endpoints only.',
  })
  // A public key takes no scopes, so leaving them out is its normal call; a secret key must say which.
  @ValidateIf((body: CreateApiKeyDto) => body.type !== 'public' || body.scopes !== undefined)
  @IsArray({ message: 'must be an array of scopes' })
  @ArrayMaxSize(ALL_SCOPES.length, { message: `must have at most ${ALL_SCOPES.length} entries` })
  @IsIn(ALL_SCOPES, { each: true, message: `each entry must be one of ${ALL_SCOPES.join(', ')}` })
  scopes?: Scope[];

  @OptionalNotNull()
  @IsIn(['secret', 'public'], { message: 'must be secret or public' })
  /** `secret` by default. */
  type?: 'secret' | 'public';

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'An ISO 8601 date-time with a time zone, in the future; the key is refused from then on. Left out or null: the key does not expire.',
  })
  @IsOptional()
  @ToDateTime()
  @IsDate({ message: 'must be an ISO 8601 date-time with a time zone' })
  expiresAt?: Date | null;
}

/** What the service needs of a creation body: defaults filled in. */
export function toCreateKeyInput(body: CreateApiKeyDto): CreateKeyInput {
  return { name: body.name, scopes: body.scopes ?? [], type: body.type ?? 'secret', expiresAt: body.expiresAt ?? null };
}
