import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Matches, MaxLength, Validate } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';
import { LeadContactDto } from '../../leads/dto/create-lead.dto';

export class CreateSessionDto {
  /** The bot the widget talks to: one of the key's tenant's bots. */
  @IsString({ message: 'must be a string' })
  @IsUUID('all', { message: 'must be a UUID' })
  botId!: string;

  @ApiPropertyOptional({
    maxLength: 1024,
    description: "The visitor's earlier visitor token (even expired, up to 30 days) to stay the same visitor; without a valid one a new visitor id is minted.",
  })
  @OptionalNotNull()
  @IsString({ message: 'must be a string' })
  @MaxLength(1024, { message: 'must be at most 1024 characters' })
  visitorToken?: string;

  @ApiPropertyOptional({
    maxLength: 4096,
    description:
      "Known visitors: a JWT the tenant's back end signed (HS256, with the identity secret) naming its user: `sub` (1..200), `iat`, `exp` (at most 24 h after `iat`), optional `email` and `name`. Valid: the visitor is that user, the same visitor id on every device; invalid: 401 `INVALID_IDENTITY_TOKEN`. See docs/known-visitors.md.",
  })
  @OptionalNotNull()
  @IsString({ message: 'must be a string' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  identityToken?: string;

  /** Ignored, still accepted from widget scripts of before part 3: the service mints visitor ids. */
  @ApiPropertyOptional({
    maxLength: 256,
    deprecated: true,
    description: 'Ignored: the service mints visitor ids (send `visitorToken` to stay the same visitor).',
  })
  @OptionalNotNull()
  @IsString({ message: 'must be a string' })
  @MaxLength(256, { message: 'must be at most 256 characters' })
  visitorId?: string;
}

export class SendMessageDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, description: "The visitor's message. Trimmed; length in Unicode code points." })
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 4000])
  content!: string;
}

export class MessagesAfterQueryDto {
  /** Only the messages after this one (a message id of the conversation). */
  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  after?: string;
}

/** The lead form: a lead's contact fields, without bot and tags (the conversation gives the bot). */
export class WidgetLeadDto extends LeadContactDto {}

/** GET /widget/demo: the bot and the public key the page embeds the widget with. */
export class WidgetDemoQueryDto {
  @IsString({ message: 'must be a string' })
  @IsUUID('all', { message: 'must be a UUID' })
  botId!: string;

  @ApiProperty({ pattern: '^svc_pk_[A-Za-z0-9]{20,60}$', maxLength: 67 })
  @IsString({ message: 'must be a string' })
  @Matches(/^svc_pk_[A-Za-z0-9]{20,60}$/, { message: 'must be a public key (svc_pk_...)' })
  key!: string;
}
