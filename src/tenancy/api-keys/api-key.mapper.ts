import { ApiProperty } from '@nestjs/swagger';
import { ApiKeyType } from '../../generated/prisma/enums';
import { KEY_PREFIX } from './api-key-format';
import type { ApiKeyRow } from './api-keys.repository';
import type { KeyActivity } from './api-key-activity.service';
import { ALL_SCOPES } from '../../common/access/scopes';

export class ApiKeyResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: Object.values(ApiKeyType), enumName: 'ApiKeyType' })
  type: ApiKeyType;

  @ApiProperty({ enum: ALL_SCOPES, enumName: 'Scope', isArray: true })
  scopes: string[];

  @ApiProperty({ enum: Object.values(KEY_PREFIX), description: 'The key’s first characters.' })
  prefix: string;

  @ApiProperty({ pattern: '^[0-9A-Za-z]{4}$', description: 'The key’s last four characters.' })
  last4: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expiresAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Updated at most once a minute.' })
  lastUsedAt: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: [ApiKeyResponse], description: 'The tenant’s keys that are not deleted; never the keys themselves.' })
  apiKeys: ApiKeyResponse[];
}

export class CreatedApiKeyResponse {
  @ApiProperty({ type: ApiKeyResponse })
  apiKey: ApiKeyResponse;

  @ApiProperty({ pattern: '^svc_(sk|pk)_[0-9A-Za-z]{33}$', description: 'The full key, shown in this answer only.' })
  key: string;
}

/** The listing form of a key: never the key itself, only its prefix and last four characters. */
export function toApiKeyResponse(row: ApiKeyRow): ApiKeyResponse {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    scopes: [...row.scopes],
    prefix: row.prefix,
    last4: row.last4,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The creation answer: the key's listing form and, this once, the full key. */
export function toCreatedApiKeyResponse({ apiKey, key }: { apiKey: ApiKeyRow; key: string }): CreatedApiKeyResponse {
  return { apiKey: toApiKeyResponse(apiKey), key };
}

export class ApiKeyActivityDayResponse {
  @ApiProperty({ format: 'date', description: 'The UTC day, `YYYY-MM-DD`.' })
  date: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Answers to the key that day, errors included.' })
  requests: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Answers with a status of 400 or above.' })
  errors: number;
}

export class ApiKeyActivityResponse {
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Updated at most once a minute.' })
  lastUsedAt: string | null;

  @ApiProperty({
    type: [ApiKeyActivityDayResponse],
    minItems: 30,
    maxItems: 30,
    description: 'The last 30 UTC days, oldest first, today last; days without requests are zeros.',
  })
  days: ApiKeyActivityDayResponse[];
}

export function toApiKeyActivityResponse(activity: KeyActivity): ApiKeyActivityResponse {
  return {
    lastUsedAt: activity.lastUsedAt?.toISOString() ?? null,
    days: activity.days.map((day) => ({ date: day.date, requests: day.requests, errors: day.errors })),
  };
}
