import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsString, Matches, Validate, ValidateNested } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim, TrimEach } from '../../common/validation/transforms';

/** A synonym entry: two or more words or phrases separated by `=` or `,` ("bill = invoice, receipt"). */
const SYNONYM_GROUP = /^[^=,\s][^=,]*(?:[=,]\s*[^=,\s][^=,]*)+$/;

export class HandoffSettingsDto {
  /** The visitor may ask for a person. */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;

  /** With enabled: an unanswered question hands the conversation to a person, after the fallback message. */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  onFallback?: boolean;

  @ApiPropertyOptional({ minLength: 1, maxLength: 500, description: 'What the widget shows once a person is asked for. Trimmed.' })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 500])
  message?: string;
}

/** PATCH /api/v1/bots/:id/settings: any field. A bot's state (isActive) is not among them. */
export class UpdateBotSettingsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 500,
    description: 'The first message of every widget conversation. Trimmed; null or empty: none.',
  })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [0, 500])
  welcomeMessage?: string | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 5,
    items: { type: 'string', minLength: 1, maxLength: 200 },
    description: 'Questions the widget offers as buttons. Each is trimmed; replaces the list.',
  })
  @OptionalNotNull()
  @IsArray({ message: 'must be an array of strings' })
  @ArrayMaxSize(5, { message: 'must have at most 5 entries' })
  @TrimEach()
  @IsString({ each: true, message: 'each entry must be a string' })
  @Validate(CodePointLength, [1, 200], { each: true, message: 'each entry must be 1 to 200 characters' })
  suggestedQuestions?: string[];

  @ApiPropertyOptional({ minLength: 1, maxLength: 500, description: 'The reply when nothing in the knowledge base fits the question. Trimmed.' })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 500])
  fallbackMessage?: string;

  @ApiPropertyOptional({ description: 'Replies list the knowledge documents they come from.' })
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  showSources?: boolean;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 100,
    items: { type: 'string', minLength: 3, maxLength: 200 },
    example: ['bill = invoice, receipt', 'cpu = processor'],
    description:
      "The bot's own synonyms for its domain's words, one group per entry: two or more words or phrases separated by `=` or `,`. A question's word then also finds passages that hold the others of its group. Each entry is trimmed; replaces the list.",
  })
  @OptionalNotNull()
  @IsArray({ message: 'must be an array of strings' })
  @ArrayMaxSize(100, { message: 'must have at most 100 entries' })
  @TrimEach()
  @IsString({ each: true, message: 'each entry must be a string' })
  @Validate(CodePointLength, [3, 200], { each: true, message: 'each entry must be 3 to 200 characters' })
  @Matches(SYNONYM_GROUP, { each: true, message: 'each entry must be two or more words or phrases separated by = or , (e.g. "bill = invoice")' })
  synonyms?: string[];

  @ApiPropertyOptional({ type: HandoffSettingsDto, description: 'Human handoff in the widget; partial.' })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => HandoffSettingsDto)
  handoff?: HandoffSettingsDto;
}
