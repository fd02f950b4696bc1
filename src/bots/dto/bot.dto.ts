import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { IsPublicHttpsUrl } from '../../common/validation/public-url';
import { Trim } from '../../common/validation/transforms';

const nameRules = [MinLength(1, { message: 'must be 1 to 100 characters' }), MaxLength(100, { message: 'must be 1 to 100 characters' })];
const colorRule = Matches(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, { message: 'must be a hex colour such as #2563eb' });
const languageRule = Matches(/^[a-z]{2}$/, { message: 'must be an ISO 639-1 code such as en' });
const avatarRules = [IsPublicHttpsUrl(), MaxLength(2048, { message: 'must be at most 2048 characters' })];

const nameDocs = { minLength: 1, maxLength: 100 };
const colorDocs = { maxLength: 7, pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', description: 'Hex colour; `#2563eb` by default.', example: '#2563eb' };
const languageDocs = { maxLength: 2, pattern: '^[a-z]{2}$', description: 'ISO 639-1 code; `en` by default.', example: 'en' };
const avatarDocs = {
  type: String,
  format: 'uri',
  maxLength: 2048,
  nullable: true,
  description: 'A public https URL (no user or password; not localhost nor a private, loopback, link-local or reserved IP address), or null for none.',
};

function apply(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

export class CreateBotDto {
  @ApiProperty(nameDocs)
  @Trim()
  @IsString({ message: 'must be a string' })
  @apply(...nameRules)
  name!: string;

  @ApiPropertyOptional(colorDocs)
  @OptionalNotNull()
  @IsString({ message: 'must be a string' })
  @colorRule
  primaryColor?: string;

  @ApiPropertyOptional(languageDocs)
  @OptionalNotNull()
  @IsString({ message: 'must be a string' })
  @languageRule
  language?: string;

  @ApiPropertyOptional(avatarDocs)
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString({ message: 'must be a string or null' })
  @apply(...avatarRules)
  avatarUrl?: string | null;

  /** Whether the widget is shown and the bot answers; true by default. */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  isActive?: boolean;
}

/** Every setting optional (null only where the setting can be empty: `avatarUrl`); switching isActive is the dashboard's toggle (SPEC 3.1) and is audited. */
export class UpdateBotDto extends PartialType(CreateBotDto, { skipNullProperties: false }) {}
