import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDate, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateBy } from 'class-validator';
import { OptionalNotNull } from '../../../common/validation/optional-not-null';
import { parseIsoDateTime } from '../../../common/validation/iso-date';
import { Trim } from '../../../common/validation/transforms';
import { ALL_SCOPES, Scope } from '../../../common/access/scopes';
import type { CreateKeyInput } from '../api-keys.service';

/** Parses an ISO 8601 date-time with a time zone; anything else is left for @IsDate to reject. */
export const ToDateTime = () => Transform(({ value }) => parseIsoDateTime(value) ?? value);

/** A list of scopes of SPEC 5.3. */
const ScopeRules = () =>
  applyDecorators(
    IsArray({ message: 'must be an array of scopes' }),
    ArrayMaxSize(ALL_SCOPES.length, { message: `must have at most ${ALL_SCOPES.length} entries` }),
    IsIn(ALL_SCOPES, { each: true, message: `each entry must be one of ${ALL_SCOPES.join(', ')}` }),
  );

export class CreateApiKeyDto {
  @Trim() @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must be 1 to 100 characters' }) @MaxLength(100, { message: 'must be 1 to 100 characters' })
  name!: string;

  @ApiProperty({ type: [String], enum: ALL_SCOPES, minItems: 0, maxItems: ALL_SCOPES.length, description: 'Scopes of SPEC 5.3, repeats ignored. May be empty: such a secret key can call only `GET /api/v1/verify`. A public key takes none (400 otherwise): it may call verify and the widget endpoints only.' })
  @ScopeRules()
  scopes!: Scope[];

  @OptionalNotNull() @IsIn(['secret', 'public'], { message: 'must be secret or public' })
  /** `secret` by default. */
  type?: 'secret' | 'public';

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'An ISO 8601 date-time with a time zone, in the future; the key is refused from then on. Left out or null: the key does not expire.' })
  @IsOptional() @ToDateTime() @IsDate({ message: 'must be an ISO 8601 date-time with a time zone' })
  expiresAt?: Date | null;
}

/** A public key's scopes must be empty: whatever it holds, it may call only /verify and the widget. */
const NoScopesOnPublicKey = () =>
  ValidateBy({
    name: 'noScopesOnPublicKey',
    validator: {
      validate: (value: unknown, args) => (args?.object as { type?: unknown }).type !== 'public' || (Array.isArray(value) && value.length === 0),
      defaultMessage: () => 'must be empty for a public key (it can call only verify and the widget)',
    },
  });

/**
 * A key made by a signed-in user (`POST /api/v1/api-keys`): the admin API's body, and a public
 * key takes no scopes (API_DECISIONS part 3). The admin API still accepts and ignores them.
 */
export class CreateTenantApiKeyDto extends CreateApiKeyDto {}

// The inherited property's rules, one more, and its documentation, for this class only (TypeScript
// has no decorated redeclaration of an inherited field). Every rule is given again: class-validator
// drops a parent's custom rules on a property the subclass gives custom rules of its own.
applyDecorators(ScopeRules(), NoScopesOnPublicKey())(CreateTenantApiKeyDto.prototype, 'scopes');
ApiProperty({
  type: [String],
  enum: ALL_SCOPES,
  minItems: 0,
  maxItems: ALL_SCOPES.length,
  description: 'Scopes of SPEC 5.3, repeats ignored. Empty for a public key (400 otherwise). An empty list on a secret key: it can call only `GET /api/v1/verify`.',
})(CreateTenantApiKeyDto.prototype, 'scopes');

/** What the service needs of a creation body: defaults filled in. */
export function toCreateKeyInput(body: CreateApiKeyDto): CreateKeyInput {
  return { name: body.name, scopes: body.scopes, type: body.type ?? 'secret', expiresAt: body.expiresAt ?? null };
}
