import { Injectable } from '@nestjs/common';
import { BriefLookupCache } from '../../common/cache/brief-lookup-cache';
import { InvalidationBus } from '../../invalidation/invalidation-bus';
import type { AuthenticatedKeyRow } from './api-keys.repository';

/** How long a verified key is trusted without asking the database again. */
export const KEY_CACHE_TTL_MS = 1_000;

/**
 * Verified keys by digest, for one second. Deletion and plan changes drop the tenant's entries on
 * every instance (InvalidationBus); expiry is checked against the cached expiresAt on every use.
 */
@Injectable()
export class ApiKeyCache extends BriefLookupCache<AuthenticatedKeyRow> {
  constructor(bus: InvalidationBus) {
    super(KEY_CACHE_TTL_MS);
    bus.onChange((tenantId) => this.drop((row) => row.tenantId === tenantId));
  }
}
