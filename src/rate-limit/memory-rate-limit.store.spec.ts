import { MemoryRateLimitStore } from './memory-rate-limit.store';

const burst = { name: 'burst', limit: 2, ttlMs: 1_000 };
const hourly = { name: 'hourly', limit: 3, ttlMs: 3_600_000 };

describe('MemoryRateLimitStore', () => {
  it('counts each window and reports when it resets', async () => {
    let now = 10_000_200;
    const store = new MemoryRateLimitStore(() => now);
    const [b, h] = await store.hit('tenant:a', [burst, hourly]);
    expect(b).toEqual({ ...burst, count: 1, resetAt: 10_001_000, now });
    expect(h).toEqual({ ...hourly, count: 1, resetAt: 10_800_000, now });
    now += 100;
    const [b2, h2] = await store.hit('tenant:a', [burst, hourly]);
    expect([b2.count, h2.count]).toEqual([2, 2]);
  });

  it('does not count later windows once an earlier one is over its limit', async () => {
    const store = new MemoryRateLimitStore(() => 5_000);
    await store.hit('k', [burst, hourly]);
    await store.hit('k', [burst, hourly]);
    const [b, h] = await store.hit('k', [burst, hourly]);
    expect(b.count).toBe(3);
    expect(h.count).toBe(2);
  });

  it('starts a new window at the boundary and keeps keys apart', async () => {
    let now = 1_999;
    const store = new MemoryRateLimitStore(() => now);
    await store.hit('k', [burst]);
    await store.hit('k', [burst]);
    now = 2_000;
    expect((await store.hit('k', [burst]))[0].count).toBe(1);
    expect((await store.hit('other', [burst]))[0].count).toBe(1);
  });
});
