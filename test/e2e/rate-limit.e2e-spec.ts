import type { RateLimitPlans } from '../../src/rate-limit/plan-limits';
import { PLAN_REQUEST_LIMITS } from '../../src/tenancy/plans';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createKey, createTenant } from '../support/factories';

const limits = (requestsPerHour: number, burstPerSecond: number) => ({ requestsPerHour, burstPerSecond });
const table = (pro: ReturnType<typeof limits>, business = limits(1000, 1000)): RateLimitPlans => ({
  free: limits(1000, 1000),
  pro,
  business,
  enterprise: limits(1000, 1000),
});

const nextHourEpochSeconds = () => Math.ceil((Math.floor(Date.now() / 3_600_000) + 1) * 3_600);

/** Waits until just after a second boundary, so a burst of requests falls into one 1-second window. */
async function startOfSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 5));
}

describe('rate limits with the production plan table', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({}, { rateLimitPlans: PLAN_REQUEST_LIMITS });
  });
  afterAll(() => t.close());

  it('sends the hourly headers of the plan on every authenticated response, counting down', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const first = await t.http().get('/api/v1/bots').set('X-API-Key', tenant.key).expect(200);
    const second = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);

    expect(first.headers['x-ratelimit-limit']).toBe('1000');
    expect(first.headers['x-ratelimit-remaining']).toBe('999');
    expect(second.headers['x-ratelimit-remaining']).toBe('998');
    expect(Number(first.headers['x-ratelimit-reset'])).toBe(nextHourEpochSeconds());
    expect(first.headers['ratelimit-policy']).toBe('"burst";q=50;w=1, "hourly";q=1000;w=3600');
    expect(second.headers.ratelimit).toMatch(/^"hourly";r=998;t=\d+$/);
    const secondsToReset = Number(/t=(\d+)$/.exec(second.headers.ratelimit)![1]);
    expect(secondsToReset).toBeGreaterThanOrEqual(1);
    expect(secondsToReset).toBeLessThanOrEqual(3600);
  });

  it('emits no suffixed or duplicate throttler headers', async () => {
    const tenant = await createTenant(t, { plan: 'business' });
    const response = await t.http().get('/api/v1/bots').set('X-API-Key', tenant.key).expect(200);
    const names = Object.keys(response.headers);
    expect(names.filter((name) => /-(hourly|burst|default)$/i.test(name))).toEqual([]);
    expect(names.filter((name) => name.startsWith('x-ratelimit')).sort()).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
    expect(response.headers['x-ratelimit-limit']).toBe('5000');
    expect(response.headers['retry-after']).toBeUndefined();
  });

  it('counts errors after authentication too: scope and validation errors carry the headers', async () => {
    const tenant = await createTenant(t, { plan: 'enterprise', scopes: ['bots:read'] });
    const forbidden = await t.http().get('/api/v1/leads').set('X-API-Key', tenant.key).expect(403);
    expect(forbidden.headers['x-ratelimit-limit']).toBe('25000');
    expect(forbidden.headers['x-ratelimit-remaining']).toBe('24999');
    const invalid = await t.http().get('/api/v1/bots?unknown=1').set('X-API-Key', tenant.key).expect(400);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('24998');
  });

  it('sends no rate-limit headers where no tenant is known (missing key)', async () => {
    const response = await t.http().get('/api/v1/bots').expect(401);
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('rate limits with small test limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({}, { rateLimitPlans: table(limits(6, 4), limits(100, 100)) });
  });
  afterAll(() => t.close());

  it('refuses requests over the burst limit, concurrent ones included, naming the burst window', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    await startOfSecond();
    const responses = await Promise.all(Array.from({ length: 10 }, () => t.http().get('/api/v1/verify').set('X-API-Key', tenant.key)));
    const ok = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 429);
    expect(ok).toHaveLength(4);
    expect(refused).toHaveLength(6);
    for (const response of refused) {
      expect(response.body).toEqual({
        error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('burst'), status: 429, requestId: response.headers['x-request-id'] },
      });
      expect(response.headers['retry-after']).toBe('1');
      expect(response.headers['x-ratelimit-limit']).toBe('6');
    }
    // Refused burst requests do not use up the hourly quota: 4 of 6 are spent.
    expect(refused[0].headers['x-ratelimit-remaining']).toBe('2');
  });

  it('refuses requests over the hourly limit with Retry-After up to the end of the hour, per tenant', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const other = await createTenant(t, { plan: 'pro' });
    const secondKey = await createKey(t, tenant.id, { scopes: ['bots:read'] });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      await startOfSecondIfBurstNear(i);
      const key = i % 2 ? secondKey.key : tenant.key;
      statuses.push((await t.http().get('/api/v1/verify').set('X-API-Key', key)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);

    const refused = await t.http().get('/api/v1/bots').set('X-API-Key', secondKey.key).expect(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toContain('hourly');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(refused.headers['retry-after']);
    const secondsToHour = nextHourEpochSeconds() - Date.now() / 1000;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(Math.abs(retryAfter - secondsToHour)).toBeLessThanOrEqual(2);

    const unaffected = await t.http().get('/api/v1/verify').set('X-API-Key', other.key).expect(200);
    expect(unaffected.headers['x-ratelimit-remaining']).toBe('5');
  });

  it('applies a plan change on the next request', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    for (let i = 0; i < 6; i++) {
      await startOfSecondIfBurstNear(i);
      await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    }
    await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(429);
    await t.admin().patch(`/admin/v1/tenants/${tenant.id}`).send({ plan: 'business' }).expect(200);
    const upgraded = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    expect(upgraded.headers['x-ratelimit-limit']).toBe('100');
  });
});

describe('failed-authentication guard', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ AUTH_FAILURE_LIMIT: '3' }, { rateLimitPlans: PLAN_REQUEST_LIMITS });
  });
  afterAll(() => t.close());

  it('answers 429 per client IP once missing or invalid keys exceed the limit, valid keys included', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    await t.http().get('/api/v1/verify').expect(401);
    await t.http().get('/api/v1/verify').set('X-API-Key', 'svc_sk_guess').expect(401);
    await t.http().get('/api/v1/bots').set('X-API-Key', tenant.key.slice(0, -1) + 'x').expect(401);

    const blocked = await t.http().get('/api/v1/verify').set('X-API-Key', 'svc_sk_another_guess').expect(429);
    expect(blocked.body.error).toEqual({ code: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('invalid API key'), status: 429, requestId: blocked.headers['x-request-id'] });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);

    // While blocked, this address cannot try keys at all: a valid one is refused too.
    await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(429);
  });
});

/** Keeps sequential requests of the hourly tests clear of the small burst limit (4 per second). */
async function startOfSecondIfBurstNear(index: number): Promise<void> {
  if (index > 0 && index % 3 === 0) await startOfSecond();
}
