import { IsEmail, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';
import type { Role } from '../../generated/prisma/enums';
import { ROLES } from '../roles';

const PASSWORD_RULE = { message: 'must be 10 to 256 characters' };
const NAME_RULE = { message: 'must be 1 to 100 characters' };

/** The password rules of API_DECISIONS part 3: 10 to 256 characters, nothing else imposed (NIST 800-63B). */
function Password(): PropertyDecorator {
  return (target, key) => {
    IsString({ message: 'must be a string' })(target, key);
    MinLength(10, PASSWORD_RULE)(target, key);
    MaxLength(256, PASSWORD_RULE)(target, key);
  };
}

function Email(): PropertyDecorator {
  return (target, key) => {
    Trim()(target, key);
    IsString({ message: 'must be a string' })(target, key);
    MaxLength(254, { message: 'must be at most 254 characters' })(target, key);
    IsEmail({}, { message: 'must be an e-mail address' })(target, key);
  };
}

function PersonName(): PropertyDecorator {
  return (target, key) => {
    Trim()(target, key);
    IsString({ message: 'must be a string' })(target, key);
    MinLength(1, NAME_RULE)(target, key);
    MaxLength(100, NAME_RULE)(target, key);
  };
}

export class SignUpDto {
  @Email()
  email!: string;

  @Password()
  password!: string;

  @PersonName()
  name!: string;

  @Trim() @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must be 1 to 200 characters' }) @MaxLength(200, { message: 'must be 1 to 200 characters' })
  tenantName!: string;
}

export class LogInDto {
  @Email()
  email!: string;

  // Any length is compared (and fails) on log-in, so that the rules never tell a guesser anything.
  @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must not be empty' }) @MaxLength(1024, { message: 'must be at most 1024 characters' })
  password!: string;
}

export class UpdateMeDto {
  @OptionalNotNull() @PersonName()
  name?: string;

  @OptionalNotNull() @Password()
  password?: string;

  @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must not be empty' }) @MaxLength(1024, { message: 'must be at most 1024 characters' })
  currentPassword!: string;
}

export class PasswordResetRequestDto {
  @Email()
  email!: string;
}

export class PasswordResetConfirmDto {
  @IsString({ message: 'must be a string' }) @MaxLength(100, { message: 'must be at most 100 characters' })
  token!: string;

  @Password()
  password!: string;
}

export class AcceptInvitationDto {
  @IsString({ message: 'must be a string' }) @MaxLength(100, { message: 'must be at most 100 characters' })
  token!: string;

  @OptionalNotNull() @PersonName()
  name?: string;

  @OptionalNotNull() @Password()
  password?: string;
}

export class CreateInvitationDto {
  @Email()
  email!: string;

  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

export class UpdateMemberDto {
  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role!: Role;
}
