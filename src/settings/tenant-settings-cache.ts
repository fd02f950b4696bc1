import { Injectable } from '@nestjs/common';
import { BriefLookupCache } from '../common/cache/brief-lookup-cache';
import { InvalidationBus } from '../invalidation/invalidation-bus';
import { SettingsRepository, TenantSettingsRow } from './settings.repository';

/** How long a tenant's settings are used without reading them again. */
export const SETTINGS_CACHE_TTL_MS = 1_000;

/**
 * The tenant settings the widget's requests read (its origins, visitor and reply limits, lead
 * form), for a second: a widget message read them twice (the origin check, then the limits), a
 * query each. A change drops them on every instance (InvalidationBus), at once on the one that
 * made it; past the second they are read again, so a lost message only delays a change.
 */
@Injectable()
export class TenantSettingsCache {
  private readonly rows = new BriefLookupCache<TenantSettingsRow>(SETTINGS_CACHE_TTL_MS);

  constructor(
    private readonly settings: SettingsRepository,
    bus: InvalidationBus,
  ) {
    bus.onChange((tenantId) => this.rows.dropKey(tenantId));
  }

  async of(tenantId: string): Promise<TenantSettingsRow> {
    return (await this.rows.getOrLookUp(tenantId, Date.now(), () => this.settings.tenantSettings(tenantId)))!;
  }
}
