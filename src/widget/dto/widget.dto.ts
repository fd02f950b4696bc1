import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Matches, Validate } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';
import { LeadContactDto } from '../../leads/dto/create-lead.dto';

export class CreateSessionDto {
  /** The bot the widget talks to: one of the key's tenant's bots. */
  @IsString({ message: 'must be a string' }) @IsUUID('all', { message: 'must be a UUID' })
  botId!: string;

  @ApiPropertyOptional({ pattern: '^[A-Za-z0-9_-]{8,64}$', minLength: 8, maxLength: 64, description: 'The id the widget keeps for this browser (to resume a visitor); a new one is made when left out.' })
  @OptionalNotNull() @IsString({ message: 'must be a string' }) @Matches(/^[A-Za-z0-9_-]{8,64}$/, { message: 'must be 8 to 64 letters, digits, - or _' })
  visitorId?: string;
}

export class SendMessageDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, description: "The visitor's message. Trimmed; length in Unicode code points." })
  @Trim() @IsString({ message: 'must be a string' }) @Validate(CodePointLength, [1, 4000])
  content!: string;
}

export class MessagesAfterQueryDto {
  /** Only the messages after this one (a message id of the conversation). */
  @IsOptional() @IsUUID('all', { message: 'must be a UUID' })
  after?: string;
}

/** The lead form: a lead's contact fields, without bot and tags (the conversation gives the bot). */
export class WidgetLeadDto extends LeadContactDto {}

/** GET /widget/demo: the bot and the public key the page embeds the widget with. */
export class WidgetDemoQueryDto {
  @IsString({ message: 'must be a string' }) @IsUUID('all', { message: 'must be a UUID' })
  botId!: string;

  @ApiProperty({ pattern: '^svc_pk_[A-Za-z0-9]{20,60}$', maxLength: 67 })
  @IsString({ message: 'must be a string' }) @Matches(/^svc_pk_[A-Za-z0-9]{20,60}$/, { message: 'must be a public key (svc_pk_...)' })
  key!: string;
}
