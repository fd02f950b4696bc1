import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';
import { SUBSCRIBABLE_EVENTS } from '../../events/event-catalogue';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook-url';

export class CreateWebhookDto {
  @ApiProperty({
    format: 'uri',
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    description:
      'Absolute https URL without user or password. A literal private, loopback, link-local or reserved address is refused (unless in WEBHOOK_ALLOWED_CIDRS, where http is allowed too); the address a name resolves to is checked when delivering.',
  })
  @Trim()
  @IsString({ message: 'must be a string' })
  @MaxLength(MAX_WEBHOOK_URL_LENGTH, { message: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  url!: string;

  @ApiProperty({ type: [String], enum: SUBSCRIBABLE_EVENTS, minItems: 1, maxItems: 10, description: 'Event types, or `["*"]` for all. Repeats are ignored.' })
  @IsArray({ message: 'must be an array of event types' })
  @ArrayMinSize(1, { message: 'must have at least 1 entry' })
  @ArrayMaxSize(10, { message: 'must have at most 10 entries' })
  @IsIn(SUBSCRIBABLE_EVENTS, { each: true, message: `each entry must be one of ${SUBSCRIBABLE_EVENTS.join(', ')}` })
  events!: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(500, { message: 'must be at most 500 characters' })
  description?: string | null;
}

export class UpdateWebhookDto extends PartialType(CreateWebhookDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({ description: 'false disables the endpoint (disabledReason `manual`); true enables it again.' })
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;
}
