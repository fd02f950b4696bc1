import { ApiProperty } from '@nestjs/swagger';
import { ApiKeyType } from '../../generated/prisma/enums';
import { KEY_PREFIX } from './api-key-format';
import type { ApiKeyRow } from './api-keys.repository';
import type { KeyActivity } from './api-key-activity.service';
import { ALL_SCOPES } from '../../common/access/scopes';
import { userIdOfActor } from '../../events/actor';

const CREATOR_TYPES = ['user', 'admin-api', 'api-key'] as const;

/** Who created a key: a user of the tenant, the admin API, or another key. */
export class ApiKeyCreatedBy {
  @ApiProperty({ enum: CREATOR_TYPES, enumName: 'ApiKeyCreatorType' })
  type: (typeof CREATOR_TYPES)[number];

  @ApiProperty({ required: false, format: 'uuid', description: 'With `type` user: the user.' })
  userId?: string;

  @ApiProperty({ required: false, type: String, nullable: true, description: "With `type` user: the user's name; null once their account is deleted." })
  name?: string | null;

  @ApiProperty({ required: false, format: 'uuid', description: 'With `type` api-key: the key that created it.' })
  keyId?: string;
}

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

  @ApiProperty({
    type: ApiKeyCreatedBy,
    nullable: true,
    description: 'Who created the key; null for keys created before this was recorded (unknown).',
  })
  createdBy: ApiKeyCreatedBy | null;
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
    createdBy: toApiKeyCreatedBy(row),
  };
}

/** The creator recorded as an actor name (`user:<id>`, `api-key:<id>`, `admin-api`), with the user's name. */
function toApiKeyCreatedBy(row: ApiKeyRow): ApiKeyCreatedBy | null {
  if (!row.createdBy) return null;
  const userId = userIdOfActor(row.createdBy);
  if (userId) return { type: 'user', userId, name: row.createdByUser?.name ?? null };
  if (row.createdBy.startsWith('api-key:')) return { type: 'api-key', keyId: row.createdBy.slice('api-key:'.length) };
  return { type: 'admin-api' };
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
