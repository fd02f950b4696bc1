import { InvalidationBus } from '../../invalidation/invalidation-bus';
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

  it('runs one lookup for the callers that miss together, and caches its row', async () => {
    const cache = new ApiKeyCache(new InvalidationBus(null));
    const release = deferred<AuthenticatedKeyRow | null>();
    const lookup = jest.fn(() => release.promise);
    const waiting = Array.from({ length: 50 }, () => cache.getOrLookUp('d1', 0, lookup));
    release.resolve(row('t1', 'k1'));
    const rows = await Promise.all(waiting);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(rows.every((found) => found?.id === 'k1')).toBe(true);
    expect(await cache.getOrLookUp('d1', 1, lookup)).toBe(rows[0]);
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('looks up again after a failed or empty lookup', async () => {
    const cache = new ApiKeyCache(new InvalidationBus(null));
    await expect(cache.getOrLookUp('d1', 0, () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(await cache.getOrLookUp('d1', 0, () => Promise.resolve(null))).toBeNull();
    expect((await cache.getOrLookUp('d1', 0, () => Promise.resolve(row('t1', 'k1'))))?.id).toBe('k1');
  });

  it('does not let later callers join a lookup that has run for the cache lifetime', async () => {
    const cache = new ApiKeyCache(new InvalidationBus(null));
    const slow = deferred<AuthenticatedKeyRow | null>();
    const early = cache.getOrLookUp('d1', 0, () => slow.promise);
    const joined = cache.getOrLookUp('d1', KEY_CACHE_TTL_MS - 1, () => Promise.resolve(null));
    const late = cache.getOrLookUp('d1', KEY_CACHE_TTL_MS, () => Promise.resolve(null));
    slow.resolve(row('t1', 'k1'));
    expect((await early)?.id).toBe('k1');
    expect((await joined)?.id).toBe('k1');
    expect(await late).toBeNull();
  });

  it('does not cache, nor share with later callers, a lookup that began before an invalidation', async () => {
    const bus = new InvalidationBus(null);
    const cache = new ApiKeyCache(bus);
    const before = deferred<AuthenticatedKeyRow | null>();
    const early = cache.getOrLookUp('d1', 0, () => before.promise);
    await bus.tenantChanged('t1');
    const late = cache.getOrLookUp('d1', 0, () => Promise.resolve(null));
    before.resolve(row('t1', 'k1'));
    expect((await early)?.id).toBe('k1');
    expect(await late).toBeNull();
    expect(cache.get('d1', 1)).toBeUndefined();
  });
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
