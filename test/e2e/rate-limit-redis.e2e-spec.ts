import { randomUUID } from 'node:crypto';
import { RateLimitPlans } from '../../src/rate-limit/plan-limits';
import { PLAN_REQUEST_LIMITS } from '../../src/tenancy/plans';
import { createTestApp, TestApp } from '../support/create-test-app';
import { EphemeralRedis, hasRedisServer } from '../support/ephemeral-redis';
import { createKey, createTenant } from '../support/factories';

const limits = (requestsPerHour: number, burstPerSecond: number) => ({ requestsPerHour, burstPerSecond });
const plans: RateLimitPlans = { free: limits(10, 100), pro: limits(10, 100), business: limits(10, 100), enterprise: limits(10, 100) };

const sharedRedisUrl = process.env.REDIS_URL;

/** Shared Redis: the machine's (REDIS_URL), as in CI. Without it this suite is skipped. */
(sharedRedisUrl ? describe : describe.skip)('two instances sharing Redis: one quota, one view of keys and plans', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await createTestApp({ REDIS_URL: sharedRedisUrl }, { rateLimitPlans: plans });
    second = await createTestApp({ REDIS_URL: sharedRedisUrl }, { rateLimitPlans: plans, connection: first.connection });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('enforces one quota across both instances', async () => {
    const tenant = await createTenant(first, { plan: 'pro' });
    const remaining: string[] = [];
    for (let i = 0; i < 10; i++) {
      const app = i % 2 ? second : first;
      const response = await app.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
      remaining.push(response.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0']);
    await first.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(429);
    await second.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(429);
  });

  // Key deletion and plan changes reach every instance through Redis pub/sub (and a 1 s cache TTL).
  async function statusOnSecondWithin(ms: number, key: string, expected: number): Promise<number> {
    const deadline = Date.now() + ms;
    let status: number;
    do {
      status = (await second.http().get('/api/v1/verify').set('X-API-Key', key)).status;
      if (status === expected) return status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (Date.now() < deadline);
    return status;
  }

  it('refuses a key deleted on one instance on the other within a second', async () => {
    const tenant = await createTenant(first, { plan: 'pro' });
    await second.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    await first.admin().delete(`/admin/v1/tenants/${tenant.id}/api-keys/${tenant.keyId}`).expect(204);
    const started = Date.now();
    expect(await statusOnSecondWithin(1_000, tenant.key, 401)).toBe(401);
    expect(Date.now() - started).toBeLessThanOrEqual(1_000);
  });

  it('applies a plan change made on one instance to the next request on the other', async () => {
    const tenant = await createTenant(first, { plan: 'pro' });
    await second.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    await first.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'free' }).expect(200);
    expect(await statusOnSecondWithin(1_000, tenant.key, 403)).toBe(403);
  });
});

/** The per-IP limits over a shared Redis: each test comes from an address of its own (the store outlives runs). */
(sharedRedisUrl ? describe : describe.skip)('two instances sharing Redis: per-IP limits', () => {
  let first: TestApp;
  let second: TestApp;
  const env = { REDIS_URL: sharedRedisUrl, AUTH_FAILURE_LIMIT: '3', PUBLIC_KEY_RATE_LIMIT: '60', TRUST_PROXY: 'loopback' };
  const freshIp = () => `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`;

  beforeAll(async () => {
    first = await createTestApp(env, { rateLimitPlans: PLAN_REQUEST_LIMITS });
    second = await createTestApp(env, { rateLimitPlans: PLAN_REQUEST_LIMITS, connection: first.connection });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('counts public-key requests per client IP across instances, apart from the tenant quota', async () => {
    const tenant = await createTenant(first, { plan: 'pro' });
    const publicKey = await createKey(first, tenant.id, { type: 'public', scopes: [] });
    const ip = freshIp();
    const verify = (app: TestApp, key: string) => app.http().get('/api/v1/verify').set('X-Forwarded-For', ip).set('X-API-Key', key);
    if (Date.now() % 60_000 > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 5));

    for (let i = 0; i < 60; i++) {
      const response = await verify(i % 2 ? second : first, publicKey.key).expect(200);
      expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    for (const app of [first, second]) {
      const refused = await verify(app, publicKey.key).expect(429);
      expect(refused.body.error.message).toContain('public-key limit');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const secret = await verify(second, tenant.key).expect(200);
    expect(secret.headers['x-ratelimit-remaining']).toBe('999');
  }, 30_000);

  it('shares the failure count of an address across instances, and lets a valid key through on both', async () => {
    const tenant = await createTenant(first, { plan: 'pro' });
    const ip = freshIp();
    const verify = (app: TestApp, key?: string) => {
      const test = app.http().get('/api/v1/verify').set('X-Forwarded-For', ip);
      return key ? test.set('X-API-Key', key) : test;
    };
    await verify(first).expect(401);
    await verify(second).expect(401);
    await verify(first).expect(401);
    await verify(second).expect(429);
    await verify(first).expect(429);
    await verify(first, tenant.key).expect(200);
    await verify(second, tenant.key).expect(200);
  });
});

/** A Redis of the test's own on a spare port, so that stopping it never touches the machine's. */
(hasRedisServer() ? describe : describe.skip)('rate limits while Redis is down', () => {
  let t: TestApp;
  let redis: EphemeralRedis;

  beforeAll(async () => {
    redis = await EphemeralRedis.create();
    t = await createTestApp({ REDIS_URL: redis.url, RATE_LIMIT_REPLICAS: '2' }, { rateLimitPlans: plans });
  });
  afterAll(async () => {
    await t.close();
    await redis.stop();
  });

  it('keeps answering at once with in-process limits at its share, then counts in Redis again', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const shared = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    expect(shared.headers['x-ratelimit-limit']).toBe('10');
    expect(shared.headers['x-ratelimit-remaining']).toBe('9');

    await redis.stop();

    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 6; i++) {
      const response = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
      statuses.push(response.status);
      expect(response.headers['x-ratelimit-limit']).toBe('5');
    }
    // Each request fails over within the client's command timeout instead of hanging.
    expect(Date.now() - started).toBeLessThan(6 * 1_000);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    await redis.start();
    let back: { headers: Record<string, string> } | undefined;
    for (let attempt = 0; attempt < 40 && back?.headers['x-ratelimit-limit'] !== '10'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      back = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key);
    }
    // The restarted Redis is empty: counting starts again in the shared store.
    expect(back?.headers['x-ratelimit-limit']).toBe('10');
  });
});
