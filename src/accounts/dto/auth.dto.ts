import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { ToBoolean, Trim } from '../../common/validation/transforms';
import type { Role } from '../../generated/prisma/enums';
import { ROLES } from '../roles';

const PASSWORD_RULE = { message: 'must be 10 to 256 characters' };
const NAME_RULE = { message: 'must be 1 to 100 characters' };
const EMAIL_LENGTH_RULE = { message: 'must be at most 254 characters' };
const EMAIL_RULE = { message: 'must be an e-mail address' };
const STRING_RULE = { message: 'must be a string' };

// The rules are written out on each field (not composed) so that the OpenAPI plugin documents
// their bounds. Passwords: 10 to 256 characters, nothing else imposed (NIST 800-63B).

export class SignUpDto {
  @Trim()
  @IsString(STRING_RULE)
  @MaxLength(254, EMAIL_LENGTH_RULE)
  @IsEmail({}, EMAIL_RULE)
  email!: string;

  @IsString(STRING_RULE)
  @MinLength(10, PASSWORD_RULE)
  @MaxLength(256, PASSWORD_RULE)
  password!: string;

  @Trim()
  @IsString(STRING_RULE)
  @MinLength(1, NAME_RULE)
  @MaxLength(100, NAME_RULE)
  name!: string;

  @Trim()
  @IsString(STRING_RULE)
  @MinLength(1, { message: 'must be 1 to 200 characters' })
  @MaxLength(200, { message: 'must be 1 to 200 characters' })
  tenantName!: string;
}

export class LogInDto {
  @Trim()
  @IsString(STRING_RULE)
  @MaxLength(254, EMAIL_LENGTH_RULE)
  @IsEmail({}, EMAIL_RULE)
  email!: string;

  // Any length is compared (and fails) on log-in, so that the rules never tell a guesser anything.
  @IsString(STRING_RULE)
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(1024, { message: 'must be at most 1024 characters' })
  password!: string;
}

/** A name and a new password, each optional: changing one's account, or creating it from an invitation. */
class NameAndPasswordDto {
  @OptionalNotNull()
  @Trim()
  @IsString(STRING_RULE)
  @MinLength(1, NAME_RULE)
  @MaxLength(100, NAME_RULE)
  name?: string;

  @OptionalNotNull()
  @IsString(STRING_RULE)
  @MinLength(10, PASSWORD_RULE)
  @MaxLength(256, PASSWORD_RULE)
  password?: string;
}

export class UpdateMeDto extends NameAndPasswordDto {
  @IsString(STRING_RULE)
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(1024, { message: 'must be at most 1024 characters' })
  currentPassword!: string;
}

export class PasswordResetRequestDto {
  @Trim()
  @IsString(STRING_RULE)
  @MaxLength(254, EMAIL_LENGTH_RULE)
  @IsEmail({}, EMAIL_RULE)
  email!: string;
}

export class PasswordResetConfirmDto {
  @IsString(STRING_RULE)
  @MaxLength(100, { message: 'must be at most 100 characters' })
  token!: string;

  @IsString(STRING_RULE)
  @MinLength(10, PASSWORD_RULE)
  @MaxLength(256, PASSWORD_RULE)
  password!: string;
}

export class AcceptInvitationDto extends NameAndPasswordDto {
  @IsString(STRING_RULE)
  @MaxLength(100, { message: 'must be at most 100 characters' })
  token!: string;
}

export class CreateInvitationDto {
  @Trim()
  @IsString(STRING_RULE)
  @MaxLength(254, EMAIL_LENGTH_RULE)
  @IsEmail({}, EMAIL_RULE)
  email!: string;

  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

/** DELETE /api/v1/members/:userId's query. */
export class RemoveMemberQueryDto {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Also delete the API keys this user created in the tenant (each audited as `api_key.deleted`).',
  })
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'must be true or false' })
  revokeKeys?: boolean;
}

export class UpdateMemberDto {
  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;
}
