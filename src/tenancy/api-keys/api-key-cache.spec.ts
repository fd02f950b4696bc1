import { InvalidationBus } from '../../common/cache/invalidation-bus';
import { ApiKeyCache, KEY_CACHE_TTL_MS } from './api-key-cache';
import type { AuthenticatedKeyRow } from './api-keys.repository';

const row = (tenantId: string, id: string) => ({ id, tenantId }) as AuthenticatedKeyRow;

describe('ApiKeyCache', () => {
  it('serves a verified key for one second, then asks again', () => {
    const cache = new ApiKeyCache(new InvalidationBus(null));
    cache.set('d1', row('t1', 'k1'), 1_000);
    expect(cache.get('d1', 1_000 + KEY_CACHE_TTL_MS - 1)?.id).toBe('k1');
    expect(cache.get('d1', 1_000 + KEY_CACHE_TTL_MS)).toBeUndefined();
    expect(cache.get('unknown', 1_000)).toBeUndefined();
  });

  it("drops a tenant's keys when the tenant changes, and only that tenant's", async () => {
    const bus = new InvalidationBus(null);
    const cache = new ApiKeyCache(bus);
    cache.set('d1', row('t1', 'k1'), 0);
    cache.set('d2', row('t1', 'k2'), 0);
    cache.set('d3', row('t2', 'k3'), 0);
    await bus.tenantChanged('t1');
    expect(cache.get('d1', 1)).toBeUndefined();
    expect(cache.get('d2', 1)).toBeUndefined();
    expect(cache.get('d3', 1)?.id).toBe('k3');
  });
});
