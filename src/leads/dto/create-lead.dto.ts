import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsEmail, IsOptional, IsString, IsUUID, MaxLength, Validate } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { Trim, TrimEach } from '../../common/validation/transforms';

/** The contact fields of a lead, as the API and the chat widget send them. */
export class LeadContactDto {
  /** Trimmed; length counts Unicode code points. */
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 200])
  name!: string;

  /** Trimmed. An address with a domain name that has a top-level domain (`user@localhost` and IP-literal domains are refused), at most 254 characters, as class-validator's `IsEmail` checks it. */
  @Trim()
  @IsString({ message: 'must be a string' })
  @MaxLength(254, { message: 'must be at most 254 characters' })
  @IsEmail({}, { message: 'must be a valid e-mail address' })
  email!: string;

  @ApiPropertyOptional({ type: String, maxLength: 50, nullable: true, description: 'Left out, empty or null: none.' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [0, 50])
  phone?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 200, nullable: true, description: 'Left out, empty or null: none.' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [0, 200])
  company?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 5000, nullable: true, description: 'A message or note. Left out, empty or null: none.' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [0, 5000])
  message?: string | null;
}

export class CreateLeadDto extends LeadContactDto {
  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: "One of the tenant's bots; any other id is a 400 on `botId`. Left out or null: no bot.",
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @IsUUID('all', { message: 'must be a UUID' })
  botId?: string | null;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    minItems: 0,
    maxItems: 20,
    items: { type: 'string', minLength: 1, maxLength: 50 },
    description: 'Each entry is trimmed. Left out or null: none.',
  })
  @IsOptional()
  @IsArray({ message: 'must be an array of strings' })
  @ArrayMaxSize(20, { message: 'must have at most 20 entries' })
  @TrimEach()
  @IsString({ each: true, message: 'each entry must be a string' })
  @Validate(CodePointLength, [1, 50], { each: true, message: 'each entry must be 1 to 50 characters' })
  tags?: string[] | null;
}
