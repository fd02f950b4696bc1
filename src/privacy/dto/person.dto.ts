import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';

/** POST /api/v1/privacy/exports and /erasures: the person, by e-mail, widget visitor id or the tenant's own id of its user (exactly one). */
export class PersonDto {
  @ApiPropertyOptional({
    maxLength: 254,
    format: 'email',
    description:
      'An e-mail address (400 otherwise), compared case-insensitively with the leads’ e-mail addresses. Give exactly one of `email`, `visitorId` and `externalId`.',
  })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(254, { message: 'must be at most 254 characters' })
  // The rule leads' e-mails are stored under: anything else names nobody, and an empty export
  // (or erasure) would read as "we hold nothing on this person".
  @IsEmail({}, { message: 'must be a valid e-mail address' })
  email?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'A widget visitor id, as conversations show it. Give exactly one of `email`, `visitorId` and `externalId`.',
  })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  visitorId?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      "The tenant's own id of its user (an identity token's `sub`, the API channel's `externalId`): that visitor, its conversations and its profile (erasure deletes it too). Give exactly one of `email`, `visitorId` and `externalId`.",
  })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  externalId?: string;
}
