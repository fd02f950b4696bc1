import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsEmail, IsString, IsUUID, MaxLength, Validate, ValidateNested } from 'class-validator';
import { CodePointLength } from '../../../common/validation/code-point-length';
import { OptionalNotNull } from '../../../common/validation/optional-not-null';
import { Trim } from '../../../common/validation/transforms';

/** What the tenant says of the person it bridges; kept on the conversation (`visitor`). */
export class ApiVisitorProfileDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Trimmed; length in Unicode code points.' })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 200])
  name?: string;

  /** Trimmed; an address with a domain name that has a top-level domain, at most 254 characters (as a lead's). */
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @MaxLength(254, { message: 'must be at most 254 characters' })
  @IsEmail({}, { message: 'must be a valid e-mail address' })
  email?: string;
}

/** POST /api/v1/conversations: a conversation of the API channel. */
export class OpenApiConversationDto {
  /** One of the tenant's bots; any other id is a 400 on `botId`. */
  @IsString({ message: 'must be a string' })
  @IsUUID('all', { message: 'must be a UUID' })
  botId!: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description:
      'Your own id of the person (a user id, a phone number, a Slack user): they become a known visitor, with the same visitor id on every conversation, ' +
      'the widget’s identified ones included. Left out: a new anonymous visitor.',
  })
  @OptionalNotNull()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 200])
  externalId?: string;

  @ApiPropertyOptional({ type: ApiVisitorProfileDto, description: 'The person’s name and e-mail, shown with the conversation.' })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => ApiVisitorProfileDto)
  visitor?: ApiVisitorProfileDto;
}
