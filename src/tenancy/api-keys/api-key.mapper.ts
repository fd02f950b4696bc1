import type { ApiKeyRow } from './api-keys.repository';

export interface ApiKeyResponse {
  id: string;
  name: string;
  type: string;
  scopes: string[];
  prefix: string;
  last4: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
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
