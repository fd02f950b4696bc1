import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { PasswordHasher } from '../../src/accounts/passwords/password-hasher';
import { RATE_LIMIT_STORE } from '../../src/rate-limit/rate-limit.store';
import { expectError } from '../support/assertions';
import { sleep } from '../support/child-server';
import { ADMIN_TOKEN, createTestApp, TestApp } from '../support/create-test-app';
import { createTenant } from '../support/factories';
import { newEmail, ORIGIN, signUp } from '../support/users';

const PASSWORD = 'correct horse battery';
const HOUR = 3_600_000;
const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
/** A network of its own for each use (IPv6 counts by /64): counters in a shared Redis outlive a run. */
const freshIp = () => `2001:db8:${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}::1`;

/** Log-ins from a client address (X-Forwarded-For, trusted from loopback), with a Cookie header or none. */
const logInFrom = (t: TestApp, ip: string, email: string, password: string, cookie?: string) => {
  const test = t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ email, password });
  return cookie ? test.set('Cookie', cookie) : test;
};

/** The `svc_device=<value>` of an answer's Set-Cookie, and its whole line. */
function deviceCookieOf(response: Response): { cookie: string; line: string } {
  const line = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((candidate) => candidate.startsWith('svc_device='));
  if (!line) throw new Error(`No device cookie in ${JSON.stringify(response.headers['set-cookie'])}`);
  return { cookie: line.split(';')[0], line };
}

/** 100 wrong passwords for the e-mail (the per-e-mail limit) from 10 addresses, 10 each (their per-address limit). */
async function useUpTheEmail(t: TestApp, email: string): Promise<void> {
  for (let address = 0; address < 10; address++) {
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 10 }, () => logInFrom(t, ip, email, 'wrong password!')));
    for (const answer of answers) expectError(answer, 401, 'INVALID_CREDENTIALS');
  }
}

describe('Log-in throttling against lock-outs (per-e-mail limit)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ ...redis, AUTH_FAILURE_LIMIT: '1000', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  it("spares a browser holding the user's svc_device cookie (from an earlier log-in) once strangers used up the e-mail's limit", async () => {
    const user = await signUp(t);
    const other = await signUp(t);
    const signedIn = await logInFrom(t, freshIp(), user.email, PASSWORD).expect(201);
    const device = deviceCookieOf(signedIn);
    expect(device.line).toMatch(/^svc_device=\d+\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=7776000$/);
    const othersDevice = deviceCookieOf(await logInFrom(t, freshIp(), other.email, PASSWORD).expect(201)).cookie;

    await useUpTheEmail(t, user.email);
    const refused = await logInFrom(t, freshIp(), user.email, PASSWORD);
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3_000);
    // Another e-mail's device, or a forged one, vouches for nothing.
    expectError(await logInFrom(t, freshIp(), user.email, PASSWORD, othersDevice), 429, 'RATE_LIMIT_EXCEEDED');
    const forged = device.cookie.replace(/^svc_device=(\d+)\./, (_, expiry: string) => `svc_device=${Number(expiry) + 1}.`);
    expectError(await logInFrom(t, freshIp(), user.email, PASSWORD, forged), 429, 'RATE_LIMIT_EXCEEDED');

    // The user's own browser, from a new address (the per-address limits still apply to it).
    const own = await logInFrom(t, freshIp(), user.email, PASSWORD, `${device.cookie}; svc_theme=dark`).expect(201);
    expect(own.body.user.id).toBe(user.id);
  });

  it("lets the user log in again without a device cookie once a password reset is completed (it clears the e-mail's failures)", async () => {
    const user = await signUp(t);
    await useUpTheEmail(t, user.email);
    expectError(await logInFrom(t, freshIp(), user.email, PASSWORD), 429, 'RATE_LIMIT_EXCEEDED');

    const reset = await t.admin().post(`/admin/v1/users/${user.id}/password-resets`).expect(201);
    const token = new URL(reset.body.resetUrl).searchParams.get('token');
    await t.http().post('/auth/v1/password-resets/confirm').set('Origin', ORIGIN).send({ token, password: 'zebra quantum harbour 8271' }).expect(204);
    const afterReset = await logInFrom(t, freshIp(), user.email, 'zebra quantum harbour 8271').expect(201);
    expect(afterReset.body.user.id).toBe(user.id);
  });

  (process.env.REDIS_URL ? it.skip : it)(
    'counts the last hour, not the clock hour: failures 10 minutes before an hour ends still refuse 10 minutes after it (in-process store; Redis: its unit test)',
    async () => {
      // The in-process store's time source, moved so that the attack straddles an hour's end.
      const store = t.app.get(RATE_LIMIT_STORE) as unknown as { clock: () => number };
      const realClock = store.clock;
      const nextHour = Math.ceil(Date.now() / HOUR) * HOUR;
      let offset = nextHour - 10 * 60_000 - Date.now();
      store.clock = () => Date.now() + offset;
      try {
        const user = await signUp(t);
        await useUpTheEmail(t, user.email);
        const lastFailureAt = store.clock();
        offset += 20 * 60_000;
        expect(store.clock()).toBeGreaterThan(nextHour);
        expectError(await logInFrom(t, freshIp(), user.email, PASSWORD), 429, 'RATE_LIMIT_EXCEEDED');
        // An hour after the last failure, every failure has left the window.
        offset += lastFailureAt + HOUR + 1_000 - store.clock();
        await logInFrom(t, freshIp(), user.email, PASSWORD).expect(201);
      } finally {
        store.clock = realClock;
      }
    },
  );
});

describe('Log-in throttling: guesses counted before the comparison, one budget per address', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ ...redis, AUTH_FAILURE_LIMIT: '5', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  /**
   * Holds every password comparison at a gate until the test opens it, so that the burst is truly
   * concurrent whatever the machine's speed: the old code compared every request it had let in.
   */
  function gateComparisons() {
    const hasher = t.app.get(PasswordHasher);
    const verify = hasher.verifyLogIn.bind(hasher);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const state = { compared: 0, open };
    const spy = jest.spyOn(hasher, 'verifyLogIn').mockImplementation(async (stored, password) => {
      state.compared++;
      await gate;
      return verify(stored, password);
    });
    return { state, restore: () => spy.mockRestore() };
  }

  async function until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  }

  it('a concurrent burst of wrong passwords and the right one gets no more comparisons than the address budget (5), and the right one is refused', async () => {
    const user = await signUp(t);
    const ip = freshIp();
    const { state, restore } = gateComparisons();
    try {
      let answered = 0;
      const answer = (response: Response) => {
        answered++;
        return response;
      };
      const wrong = Array.from({ length: 15 }, () => logInFrom(t, ip, user.email, 'wrong password!').then(answer));
      // Every wrong one is either at the comparison or answered (429) before the right one is sent.
      await until(() => state.compared + answered >= 15, 'the burst to be compared or refused');
      let rightAnswered = false;
      const right = logInFrom(t, ip, user.email, PASSWORD).then((response) => {
        rightAnswered = true;
        return response;
      });
      const comparedBefore = state.compared;
      await until(() => rightAnswered || state.compared > comparedBefore, 'the right password to be refused or compared');
      state.open();
      const answers = await Promise.all(wrong);
      expect(state.compared).toBeLessThanOrEqual(5);
      expect(answers.filter((response) => response.status === 401)).toHaveLength(state.compared);
      expect(answers.filter((response) => response.status === 429)).toHaveLength(15 - state.compared);
      expectError(await right, 429, 'RATE_LIMIT_EXCEEDED');
    } finally {
      restore();
    }
  });

  it('admin-token failures and password failures from one address share one budget; API-key failures keep their own', async () => {
    const user = await signUp(t);
    const tenant = await createTenant(t, { plan: 'pro' });
    const ip = freshIp();
    const admin = (token: string) => t.http().get(`/admin/v1/tenants/${tenant.id}`).set('X-Forwarded-For', ip).set('Authorization', `Bearer ${token}`);
    for (let i = 0; i < 3; i++) await admin(`wrong-admin-token-${i}`).expect(401);
    for (let i = 0; i < 2; i++) expectError(await logInFrom(t, ip, newEmail('guess'), 'wrong password!'), 401, 'INVALID_CREDENTIALS');

    // 5 guesses used: both secrets are refused from this address, the right ones included.
    const login = await logInFrom(t, ip, user.email, PASSWORD);
    expectError(login, 429, 'RATE_LIMIT_EXCEEDED');
    expect(login.headers['set-cookie']).toBeUndefined();
    expectError(await admin(ADMIN_TOKEN), 429, 'RATE_LIMIT_EXCEEDED');
    // An API key's 160 random bits cannot be guessed: a broken integration behind the same address
    // must not lock its people out, so key failures are counted apart.
    await t.http().get('/api/v1/verify').set('X-Forwarded-For', ip).set('X-API-Key', 'svc_sk_guess').expect(401);
    await t.http().get('/api/v1/verify').set('X-Forwarded-For', ip).set('X-API-Key', tenant.key).expect(200);
    // Right guesses are given back: a person who signs in often is never slowed by it.
    const other = freshIp();
    for (let i = 0; i < 8; i++) await logInFrom(t, other, user.email, PASSWORD).expect(201);
    for (let i = 0; i < 8; i++) await admin(ADMIN_TOKEN).set('X-Forwarded-For', other).expect(200);
  });
});
