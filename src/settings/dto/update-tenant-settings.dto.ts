import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsString, Max, MaxLength, Min, Validate, ValidateIf, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { IsOriginList, IsTimeZoneName, normaliseOrigin, normaliseTimeZone } from './settings-validators';

export const MAX_ALLOWED_ORIGINS = 50;

export class VisitorMessageLimitDto {
  /** Messages one visitor may send per window. */
  @ApiPropertyOptional({ minimum: 1, maximum: 1000 })
  @OptionalNotNull()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(1000, { message: 'must be at most 1000' })
  messages?: number;

  /** The window's length in seconds. */
  @ApiPropertyOptional({ minimum: 1, maximum: 86400 })
  @OptionalNotNull()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(86_400, { message: 'must be at most 86400' })
  windowSeconds?: number;
}

export class LeadCaptureDto {
  /** The widget offers the lead form. */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;

  /** The lead form requires a phone number. */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  requirePhone?: boolean;

  /** The lead form requires a company. */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  requireCompany?: boolean;
}

export class WidgetLimitsDto {
  /** Bot replies the widget gives one client address (IPv6: one /64) per UTC day. */
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100000 })
  @OptionalNotNull()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100_000, { message: 'must be at most 100000' })
  repliesPerIpPerDay?: number;

  /** Bot replies the widget gives the whole tenant per UTC day; at most the plan's messages a month. Null: the plan's default. */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    nullable: true,
    description:
      "Bot replies the widget gives the whole tenant per UTC day; at most the plan's messages a month (400 beyond). Null: back to the plan's default, a tenth of its messages a month.",
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt({ message: 'must be an integer or null' })
  @Min(1, { message: "must be at least 1 (or null: the plan's default)" })
  repliesPerDay?: number | null;
}

/** Null keeps the rows for ever; otherwise the hourly sweep deletes them after this many days. */
export class RetentionDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 30,
    maximum: 3650,
    nullable: true,
    description: "Days after a conversation's last message (or its start) before it is deleted with its messages; null: kept for ever.",
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt({ message: 'must be an integer or null' })
  @Min(30, { message: 'must be at least 30 (or null: kept for ever)' })
  @Max(3650, { message: 'must be at most 3650 (or null: kept for ever)' })
  conversationDays?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 30,
    maximum: 3650,
    nullable: true,
    description: 'Days after its creation before a lead is deleted; null: kept for ever.',
  })
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt({ message: 'must be an integer or null' })
  @Min(30, { message: 'must be at least 30 (or null: kept for ever)' })
  @Max(3650, { message: 'must be at most 3650 (or null: kept for ever)' })
  leadDays?: number | null;
}

export class IdentityVerificationDto {
  /** Refuse widget sessions without an identity token; true needs an identity secret (400 otherwise). */
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  required?: boolean;
}

/** PATCH /api/v1/settings: any field, nested objects partial too; null is refused everywhere but in `retention`. */
export class UpdateTenantSettingsDto {
  @ApiPropertyOptional({ maxLength: 64, example: 'Europe/Berlin', description: 'An IANA time zone name; analytics periods are days, weeks and months in it.' })
  @OptionalNotNull()
  @Transform(({ value }: { value: unknown }) => normaliseTimeZone(value) ?? value)
  @IsString({ message: 'must be a string' })
  @MaxLength(64, { message: 'must be at most 64 characters' })
  @Validate(IsTimeZoneName)
  timezone?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_ALLOWED_ORIGINS,
    items: { type: 'string', maxLength: 2048 },
    example: ['https://www.example.com'],
    description:
      'Origins the widget may run on (`https://host[:port]`; `http://` for localhost only), normalised to lower case, duplicates dropped. Empty: any origin.',
  })
  @OptionalNotNull()
  @IsArray({ message: 'must be an array of origins' })
  @ArrayMaxSize(MAX_ALLOWED_ORIGINS, { message: `must have at most ${MAX_ALLOWED_ORIGINS} entries` })
  @Transform(({ value }: { value: unknown }) => (Array.isArray(value) ? value.map((origin) => normaliseOrigin(origin) ?? origin) : value))
  @Validate(IsOriginList)
  allowedOrigins?: string[];

  @ApiPropertyOptional({ type: VisitorMessageLimitDto })
  @OptionalNotNull()
  @ValidateNested({ message: 'must be an object' })
  @Type(() => VisitorMessageLimitDto)
  visitorMessageLimit?: VisitorMessageLimitDto;

  @ApiPropertyOptional({ type: LeadCaptureDto })
  @OptionalNotNull()
  @ValidateNested({ message: 'must be an object' })
  @Type(() => LeadCaptureDto)
  leadCapture?: LeadCaptureDto;

  @ApiPropertyOptional({ type: WidgetLimitsDto })
  @OptionalNotNull()
  @ValidateNested({ message: 'must be an object' })
  @Type(() => WidgetLimitsDto)
  widgetLimits?: WidgetLimitsDto;

  @ApiPropertyOptional({ type: RetentionDto })
  @OptionalNotNull()
  @ValidateNested({ message: 'must be an object' })
  @Type(() => RetentionDto)
  retention?: RetentionDto;

  @ApiPropertyOptional({
    type: IdentityVerificationDto,
    description: '`configured` is read-only: the secret is made and deleted at `/api/v1/identity-secret`.',
  })
  @OptionalNotNull()
  @ValidateNested({ message: 'must be an object' })
  @Type(() => IdentityVerificationDto)
  identityVerification?: IdentityVerificationDto;
}
