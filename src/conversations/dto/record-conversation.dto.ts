import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDate, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { CONVERSATION_STATUSES } from './list-conversations.query';
import { ConversationChannel, ConversationStatus, MessageRole } from '../../generated/prisma/enums';
import { LeadContactDto } from '../../leads/dto/create-lead.dto';
import { ToDateTime } from '../../tenancy/api-keys/dto/create-api-key.dto';

const ROLES = Object.values(MessageRole);
const CHANNELS = Object.values(ConversationChannel);

export class MessageInputDto {
  @IsIn(ROLES, { message: `must be one of ${ROLES.join(', ')}` })
  role!: MessageRole;

  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(4_000, { message: 'must be at most 4000 characters' })
  content!: string;

  @OptionalNotNull()
  @ToDateTime()
  @IsDate({ message: 'must be an ISO 8601 date-time with a time zone' })
  /** When the message was sent; by default the conversation's start plus its position in milliseconds. */
  createdAt?: Date;
}

export class RecordConversationDto {
  /** `active` by default; an `ended` conversation ends at its last message. */
  @OptionalNotNull()
  @IsIn(CONVERSATION_STATUSES, { message: `must be one of ${CONVERSATION_STATUSES.join(', ')}` })
  status?: ConversationStatus;

  @OptionalNotNull()
  @IsIn(CHANNELS, { message: `must be one of ${CHANNELS.join(', ')}` })
  channel?: ConversationChannel;

  /** The widget's visitor; left out or null for none. */
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  visitorId?: string | null;

  /** When the conversation started; now by default. */
  @OptionalNotNull()
  @ToDateTime()
  @IsDate({ message: 'must be an ISO 8601 date-time with a time zone' })
  createdAt?: Date;

  @IsArray({ message: 'must be an array of messages' })
  @ArrayMaxSize(500, { message: 'must have at most 500 entries' })
  @ValidateNested({ each: true })
  @Type(() => MessageInputDto)
  messages!: MessageInputDto[];

  /** The lead the widget captured, stored with source `widget` and this conversation. */
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => LeadContactDto)
  lead?: LeadContactDto;
}
