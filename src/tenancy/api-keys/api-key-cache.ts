import { Injectable } from '@nestjs/common';
import { InvalidationBus } from '../../common/cache/invalidation-bus';
import type { AuthenticatedKeyRow } from './api-keys.repository';

/** How long a verified key is trusted without asking the database again. */
export const KEY_CACHE_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

/**
 * Verified keys by digest, for one second: hot keys cost no query on most requests. Deletion and
 * plan changes invalidate the tenant's entries on every instance (InvalidationBus); expiry is
 * checked against the cached expiresAt on every use. So a deleted or expired key is refused within
 * one second everywhere, and at once on the instance that deleted it.
 */
@Injectable()
export class ApiKeyCache {
  private readonly entries = new Map<string, { row: AuthenticatedKeyRow; until: number }>();

  constructor(bus: InvalidationBus) {
    bus.onChange((tenantId) => this.dropTenant(tenantId));
  }

  get(digest: string, now: number): AuthenticatedKeyRow | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (entry.until > now) return entry.row;
    this.entries.delete(digest);
    return undefined;
  }

  set(digest: string, row: AuthenticatedKeyRow, now: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(digest, { row, until: now + KEY_CACHE_TTL_MS });
  }

  private dropTenant(tenantId: string): void {
    for (const [digest, entry] of this.entries) if (entry.row.tenantId === tenantId) this.entries.delete(digest);
  }
}
