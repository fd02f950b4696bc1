import type { RateLimitPlans } from '../../src/rate-limit/plan-limits';
import { PLAN_REQUEST_LIMITS } from '../../src/tenancy/plans';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../../src/rate-limit/rate-limit.store';
import { ApiKeysRepository } from '../../src/tenancy/api-keys/api-keys.repository';
import { expectError } from '../support/assertions';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/create-test-app';
import { changeLastCharacter, createKey, createTenant } from '../support/factories';

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
  // TRUST_PROXY lets each test come from its own client address (X-Forwarded-For from loopback).
  const from = (ip: string) => ({
    get: (url: string) => t.http().get(url).set('X-Forwarded-For', ip),
  });

  beforeAll(async () => {
    t = await createTestApp({ AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'loopback' }, { rateLimitPlans: PLAN_REQUEST_LIMITS });
  });
  afterAll(() => t.close());

  it('answers 429 per client IP once missing or invalid keys exceed the limit, but never to a valid key', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const ip = '203.0.113.10';
    await from(ip).get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    await from(ip).get('/api/v1/verify').expect(401);
    await from(ip).get('/api/v1/verify').set('X-API-Key', 'svc_sk_guess').expect(401);
    await from(ip).get('/api/v1/bots').set('X-API-Key', changeLastCharacter(tenant.key)).expect(401);

    const blocked = await from(ip).get('/api/v1/verify').set('X-API-Key', 'svc_sk_another_guess').expect(429);
    expect(blocked.body.error).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('invalid API key'),
      status: 429,
      requestId: blocked.headers['x-request-id'],
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(blocked.headers['x-ratelimit-limit']).toBeUndefined();

    // Only failures are throttled: a valid key from the blocked address is served as usual.
    const valid = await from(ip).get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    expect(valid.headers['x-ratelimit-remaining']).toBe('998');
    await from(ip).get('/api/v1/bots').set('X-API-Key', tenant.key).expect(200);
    for (const key of [undefined, 'svc_sk_guess', changeLastCharacter(tenant.key)]) {
      const refused = from(ip).get('/api/v1/verify');
      const response = await (key === undefined ? refused : refused.set('X-API-Key', key)).expect(429);
      expectError(response, 429, 'RATE_LIMIT_EXCEEDED');
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Another address is not affected.
    await from('203.0.113.11').get('/api/v1/verify').expect(401);
  });

  it('refuses a missing or malformed key from a blocked address without a lookup or a store round trip', async () => {
    const ip = '203.0.113.12';
    for (let i = 0; i < 3; i++) await from(ip).get('/api/v1/verify').expect(401);
    await from(ip).get('/api/v1/verify').expect(429);

    const lookups = jest.spyOn(t.app.get(ApiKeysRepository), 'findByDigest');
    const hits = jest.spyOn(t.app.get<RateLimitStore>(RATE_LIMIT_STORE), 'hit');
    try {
      await from(ip).get('/api/v1/verify').expect(429);
      await from(ip).get('/api/v1/verify').set('X-API-Key', 'svc_sk_not-a-key').expect(429);
      expect(lookups).not.toHaveBeenCalled();
      expect(hits).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
      hits.mockRestore();
    }
  });

  it('limits wrong admin bearer tokens per client IP the same way, apart from API-key failures; over the limit even the right token is 429, before it is compared', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const ip = '203.0.113.13';
    const admin = (token: string | undefined) => {
      const test = from(ip).get(`/admin/v1/tenants/${tenant.id}`);
      return token === undefined ? test : test.set('Authorization', `Bearer ${token}`);
    };
    await admin(undefined).expect(401);
    await admin('wrong-token').expect(401);
    await admin(ADMIN_TOKEN.slice(0, -1)).expect(401);

    const blocked = await admin('another-wrong-token').expect(429);
    expect(blocked.body.error).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('admin bearer token'),
      status: 429,
      requestId: blocked.headers['x-request-id'],
    });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(60);
    await admin(undefined).expect(429);

    // A guesser who finds the token while throttled learns nothing: 429, as for a wrong one.
    const right = await admin(ADMIN_TOKEN).expect(429);
    expect(right.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    // Separate counts: the admin failures do not block API-key attempts from that address, nor another address.
    await from(ip).get('/api/v1/verify').expect(401);
    await from('203.0.113.14').get(`/admin/v1/tenants/${tenant.id}`).set('Authorization', 'Bearer wrong-token').expect(401);
  });
});

describe('public keys', () => {
  let t: TestApp;
  const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy'];
  const quotaHeadersOf = (response: { headers: Record<string, string> }) => RATE_LIMIT_HEADERS.filter((name) => response.headers[name] !== undefined);

  beforeAll(async () => {
    t = await createTestApp({ AUTH_FAILURE_LIMIT: '20', PUBLIC_KEY_RATE_LIMIT: '60', TRUST_PROXY: 'loopback' }, { rateLimitPlans: PLAN_REQUEST_LIMITS });
  });
  afterAll(() => t.close());

  it("never count against the tenant's quota nor carry or change its rate-limit headers, refused ones included", async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const publicKey = await createKey(t, tenant.id, { type: 'public', scopes: [] });
    const before = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    expect(before.headers['x-ratelimit-remaining']).toBe('999');

    for (let i = 0; i < 100; i++) {
      // Two client addresses, so that the public-key limit (60 a minute per address) is not reached.
      const response = await t
        .http()
        .get('/api/v1/verify')
        .set('X-Forwarded-For', `198.51.100.${i % 2}`)
        .set('X-API-Key', publicKey.key)
        .expect(200);
      expect(quotaHeadersOf(response)).toEqual([]);
    }
    const forbidden = await t.http().get('/api/v1/bots').set('X-Forwarded-For', '198.51.100.2').set('X-API-Key', publicKey.key).expect(403);
    expectError(forbidden, 403, 'INSUFFICIENT_SCOPE');
    expect(quotaHeadersOf(forbidden)).toEqual([]);

    const after = await t.http().get('/api/v1/verify').set('X-API-Key', tenant.key).expect(200);
    expect(after.headers['x-ratelimit-remaining']).toBe('998');
  });

  it('are limited to 60 requests a minute per client IP, with their own 429', async () => {
    const tenant = await createTenant(t, { plan: 'pro' });
    const publicKey = await createKey(t, tenant.id, { type: 'public', scopes: [] });
    const ip = '198.51.100.20';
    const verify = (key: string, from = ip) => t.http().get('/api/v1/verify').set('X-Forwarded-For', from).set('X-API-Key', key);
    // The window is a calendar minute: start well inside one so that all 61 requests fall into it.
    if (Date.now() % 60_000 > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 5));

    for (let i = 0; i < 60; i++) await verify(publicKey.key).expect(200);
    const refused = await verify(publicKey.key).expect(429);
    expect(refused.body.error).toEqual({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining('public-key limit of 60'),
      status: 429,
      requestId: refused.headers['x-request-id'],
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(quotaHeadersOf(refused)).toEqual([]);

    await verify(publicKey.key, '198.51.100.21').expect(200);
    const secret = await verify(tenant.key).expect(200);
    expect(secret.headers['x-ratelimit-remaining']).toBe('999');
  }, 30_000);
});

/** Keeps sequential requests of the hourly tests clear of the small burst limit (4 per second). */
async function startOfSecondIfBurstNear(index: number): Promise<void> {
  if (index > 0 && index % 3 === 0) await startOfSecond();
}
