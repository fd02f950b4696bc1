import { ROLE_SCOPES } from '../../src/accounts/roles';
import { expectError, UUID } from '../support/assertions';
import { sleep } from '../support/child-server';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant } from '../support/factories';
import { asUser, logIn, newEmail, ORIGIN, sessionCookieOf, signUp } from '../support/users';

const PASSWORD = 'correct horse battery';

describe('Users and sessions (/auth/v1)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('sign-up', () => {
    it('creates a Free tenant with the user as owner, and a session cookie (HttpOnly, SameSite=Lax, not Secure over plain HTTP)', async () => {
      const email = newEmail();
      const response = await t
        .http()
        .post('/auth/v1/signup')
        .set('Origin', ORIGIN)
        .send({ email: `  ${email.toUpperCase()} `, password: PASSWORD, name: ' Ada ', tenantName: 'Analytical Engines' })
        .expect(201);
      expect(response.body).toStrictEqual({
        user: { id: expect.stringMatching(UUID), email: email.toUpperCase(), name: 'Ada', createdAt: expect.any(String) },
        memberships: [
          {
            tenant: {
              id: expect.stringMatching(UUID),
              name: 'Analytical Engines',
              slug: expect.stringMatching(/^analytical-engines-[0-9a-f]{6}$/),
              plan: 'free',
            },
            role: 'owner',
            // What the role may do (API_DECISIONS part 4): the dashboard reads it, never role names.
            scopes: [...ROLE_SCOPES.owner],
            capabilities: ['tenant:manage', 'owners:manage'],
            assignableRoles: ['owner', 'admin', 'agent', 'viewer'],
          },
        ],
      });
      const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((line) => line.startsWith('svc_session='))!;
      expect(cookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      // The e-mail is unique whatever its case and spaces.
      const again = await t.http().post('/auth/v1/signup').set('Origin', ORIGIN).send({ email, password: PASSWORD, name: 'Other', tenantName: 'Other' });
      expectError(again, 409, 'EMAIL_TAKEN');
    });

    it('stores neither the password nor the session token, only an argon2id hash (OWASP minimum) and a SHA-256 digest', async () => {
      const user = await signUp(t, { password: 'a very secret phrase' });
      const stored = await t.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(stored.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      const token = user.cookie.split('=')[1];
      const sessions = await t.prisma.session.findMany({ where: { userId: user.id } });
      expect(sessions).toHaveLength(1);
      expect(sessions[0].tokenDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(sessions)).not.toContain(token);
      expect(JSON.stringify(stored)).not.toContain('a very secret phrase');
    });

    it('validates the fields, naming each one and never echoing the password', async () => {
      const response = await t
        .http()
        .post('/auth/v1/signup')
        .set('Origin', ORIGIN)
        .send({ email: 'not-an-email', password: 'short', name: '', tenantName: 'x' });
      expectError(response, 400, 'VALIDATION_ERROR', [
        { field: 'email', message: 'must be an e-mail address' },
        { field: 'password', message: 'must be 10 to 256 characters' },
        { field: 'name', message: 'must be 1 to 100 characters' },
      ]);
      expect(JSON.stringify(response.body)).not.toContain('short');
    });

    it('is refused with 403 SIGNUP_CLOSED when SIGNUP=closed', async () => {
      const closed = await createTestApp({ SIGNUP: 'closed' });
      try {
        const response = await closed
          .http()
          .post('/auth/v1/signup')
          .set('Origin', ORIGIN)
          .send({ email: newEmail(), password: PASSWORD, name: 'N', tenantName: 'T' });
        expectError(response, 403, 'SIGNUP_CLOSED');
      } finally {
        await closed.close();
      }
    });
  });

  describe('log-in', () => {
    it('answers with the user and memberships and a new session; the e-mail in any case', async () => {
      const user = await signUp(t);
      const response = await t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).send({ email: user.email.toUpperCase(), password: PASSWORD }).expect(201);
      expect(response.body.user.id).toBe(user.id);
      expect(response.body.memberships).toEqual([expect.objectContaining({ role: 'owner', tenant: expect.objectContaining({ id: user.tenantId }) })]);
      const cookie = sessionCookieOf(response);
      expect(cookie).not.toBe(user.cookie);
      await asUser(t, cookie, null).get('/auth/v1/me').expect(200);
    });

    it('gives an unknown e-mail and a wrong password the same answer, in about the same time (a hash either way)', async () => {
      const user = await signUp(t);
      const attempt = async (email: string) => {
        const started = process.hrtime.bigint();
        const response = await t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).send({ email, password: 'wrong password 1' });
        return { response, ms: Number(process.hrtime.bigint() - started) / 1e6 };
      };
      const wrong: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 6; i++) {
        const a = await attempt(user.email);
        const b = await attempt(newEmail('nobody'));
        expectError(a.response, 401, 'INVALID_CREDENTIALS');
        expectError(b.response, 401, 'INVALID_CREDENTIALS');
        expect(b.response.body.error.message).toBe(a.response.body.error.message);
        wrong.push(a.ms);
        unknown.push(b.ms);
      }
      const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
      // Without the decoy hash an unknown e-mail answered in one query (~25x faster than a hash).
      const ratio = median(unknown) / median(wrong);
      expect(ratio).toBeGreaterThan(0.33);
      expect(ratio).toBeLessThan(3);
    });

    it("refuses a log-in or sign-up without the service's Origin (403 CSRF_REJECTED), before reading the password", async () => {
      const user = await signUp(t);
      expectError(await t.http().post('/auth/v1/sessions').send({ email: user.email, password: PASSWORD }), 403, 'CSRF_REJECTED');
      expectError(
        await t.http().post('/auth/v1/sessions').set('Origin', 'https://evil.example').send({ email: user.email, password: PASSWORD }),
        403,
        'CSRF_REJECTED',
      );
      expectError(await t.http().post('/auth/v1/signup').set('Origin', 'null').send({}), 403, 'CSRF_REJECTED');
    });
  });

  describe('the session', () => {
    it('is required by /auth/v1/me: missing, malformed and unknown cookies are 401 INVALID_SESSION', async () => {
      expectError(await t.http().get('/auth/v1/me'), 401, 'INVALID_SESSION');
      expectError(await t.http().get('/auth/v1/me').set('Cookie', 'svc_session=garbage'), 401, 'INVALID_SESSION');
      expectError(
        await t
          .http()
          .get('/auth/v1/me')
          .set('Cookie', `svc_session=${'A'.repeat(43)}`),
        401,
        'INVALID_SESSION',
      );
    });

    it("lists the user's own sessions with the current one marked, and ends one of them on request", async () => {
      const user = await signUp(t);
      const second = await logIn(t, user.email, PASSWORD);
      const other = await signUp(t);
      const list = await asUser(t, user.cookie, null).get('/auth/v1/sessions').set('User-Agent', 'probe').expect(200);
      expect(list.body.sessions).toHaveLength(2);
      expect(list.body.sessions.filter((session: { current: boolean }) => session.current)).toHaveLength(1);
      expect(list.body.sessions[0]).toStrictEqual({
        id: expect.stringMatching(UUID),
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        userAgent: 'e2e-browser',
        ip: expect.any(String),
        current: expect.any(Boolean),
      });
      const secondId = list.body.sessions.find((session: { current: boolean }) => !session.current).id;
      // Another user's session id is 404, as is a malformed one.
      const othersId = (await asUser(t, other.cookie, null).get('/auth/v1/sessions').expect(200)).body.sessions[0].id;
      expectError(await asUser(t, user.cookie, null).delete(`/auth/v1/sessions/${othersId}`), 404, 'NOT_FOUND');
      expectError(await asUser(t, user.cookie, null).delete('/auth/v1/sessions/nope'), 404, 'NOT_FOUND');
      await asUser(t, other.cookie, null).get('/auth/v1/me').expect(200);

      await asUser(t, user.cookie, null).delete(`/auth/v1/sessions/${secondId}`).expect(204);
      expectError(await asUser(t, second, null).get('/auth/v1/me'), 401, 'INVALID_SESSION');
      await asUser(t, user.cookie, null).get('/auth/v1/me').expect(200);
    });

    it('logs out: ends the session, clears the cookie', async () => {
      const user = await signUp(t);
      const response = await asUser(t, user.cookie, null).delete('/auth/v1/sessions/current').expect(204);
      expect(([] as string[]).concat(response.headers['set-cookie'] ?? [])).toContain('svc_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
      expectError(await asUser(t, user.cookie, null).get('/auth/v1/me'), 401, 'INVALID_SESSION');
      expectError(await asUser(t, user.cookie, user.tenantId).get('/api/v1/bots'), 401, 'INVALID_SESSION');
    });

    it('expires after 12 idle hours and after 7 days whatever the use', async () => {
      const idle = await signUp(t);
      const old = await signUp(t);
      await t.prisma.session.updateMany({ where: { userId: idle.id }, data: { lastSeenAt: new Date(Date.now() - 12 * 3_600_000 - 1000) } });
      await t.prisma.session.updateMany({ where: { userId: old.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      await sleep(1_050); // past the session cache (800 ms)
      expectError(await asUser(t, idle.cookie, null).get('/auth/v1/me'), 401, 'INVALID_SESSION');
      expectError(await asUser(t, old.cookie, null).get('/auth/v1/me'), 401, 'INVALID_SESSION');
    });

    it("refuses a cookie-authenticated change without the service's Origin (403 CSRF_REJECTED); reads need none", async () => {
      const user = await signUp(t);
      await t.http().get('/auth/v1/me').set('Cookie', user.cookie).expect(200);
      await t.http().get('/api/v1/bots').set('Cookie', user.cookie).set('X-Tenant-Id', user.tenantId).expect(200);
      expectError(await t.http().patch('/auth/v1/me').set('Cookie', user.cookie).send({ name: 'X', currentPassword: PASSWORD }), 403, 'CSRF_REJECTED');
      expectError(
        await t
          .http()
          .patch('/api/v1/settings')
          .set('Cookie', user.cookie)
          .set('X-Tenant-Id', user.tenantId)
          .set('Origin', 'https://evil.example')
          .send({ timezone: 'UTC' }),
        403,
        'CSRF_REJECTED',
      );
      expectError(await t.http().delete('/auth/v1/sessions/current').set('Cookie', user.cookie).set('Origin', `${ORIGIN}.evil.example`), 403, 'CSRF_REJECTED');
      await asUser(t, user.cookie, null).get('/auth/v1/me').expect(200);
    });
  });

  describe('PATCH /auth/v1/me', () => {
    it('renames the user when the current password is right, and refuses a wrong one (400 on currentPassword)', async () => {
      const user = await signUp(t);
      const renamed = await asUser(t, user.cookie, null).patch('/auth/v1/me').send({ name: 'Grace', currentPassword: PASSWORD }).expect(200);
      expect(renamed.body.user.name).toBe('Grace');
      expectError(await asUser(t, user.cookie, null).patch('/auth/v1/me').send({ name: 'Eve', currentPassword: 'not my password' }), 400, 'VALIDATION_ERROR', [
        { field: 'currentPassword', message: 'is not your current password' },
      ]);
      expectError(await asUser(t, user.cookie, null).patch('/auth/v1/me').send({ name: 'Eve' }), 400, 'VALIDATION_ERROR', [
        { field: 'currentPassword', message: 'must be a string' },
      ]);
    });

    it('a new password ends every other session of the user, keeps this one, and is the one that logs in', async () => {
      const user = await signUp(t);
      const other = await logIn(t, user.email, PASSWORD);
      await asUser(t, user.cookie, null).patch('/auth/v1/me').send({ password: 'a brand new password', currentPassword: PASSWORD }).expect(200);
      expectError(await asUser(t, other, null).get('/auth/v1/me'), 401, 'INVALID_SESSION');
      await asUser(t, user.cookie, null).get('/auth/v1/me').expect(200);
      expectError(await t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).send({ email: user.email, password: PASSWORD }), 401, 'INVALID_CREDENTIALS');
      await logIn(t, user.email, 'a brand new password');
    });
  });

  describe('a user on the tenant API', () => {
    it('names the tenant in X-Tenant-Id: missing or malformed 400 TENANT_REQUIRED, another tenant 403 NOT_A_MEMBER', async () => {
      const user = await signUp(t);
      const stranger = await signUp(t);
      expectError(await asUser(t, user.cookie, null).get('/api/v1/bots'), 400, 'TENANT_REQUIRED');
      expectError(await asUser(t, user.cookie, 'not-a-uuid').get('/api/v1/bots'), 400, 'TENANT_REQUIRED');
      expectError(await asUser(t, user.cookie, stranger.tenantId).get('/api/v1/bots'), 403, 'NOT_A_MEMBER');
      await asUser(t, user.cookie, user.tenantId).get('/api/v1/bots').expect(200);
    });

    it("works on every plan (a Free tenant has no API access for keys) and leaves the tenant's API quota alone", async () => {
      const user = await signUp(t);
      const response = await asUser(t, user.cookie, user.tenantId).get('/api/v1/leads').expect(200);
      expect(response.headers['x-ratelimit-limit']).toBe('600');
      expect(response.headers['ratelimit']).toMatch(/^"user";r=\d+;t=\d+$/);
    });

    it("a request with X-API-Key is the key's, whatever cookie comes with it", async () => {
      const user = await signUp(t);
      expectError(await asUser(t, user.cookie, user.tenantId).get('/api/v1/bots').set('X-API-Key', 'svc_sk_wrong'), 401, 'INVALID_API_KEY');
      const keyed = await createTenant(t, { plan: 'pro' });
      // The key's tenant, not the user's: the key decides.
      const bots = await asUser(t, user.cookie, user.tenantId).get('/api/v1/verify').set('X-API-Key', keyed.key).expect(200);
      expect(bots.body.tenant.id).toBe(keyed.id);
    });

    it('is limited to 600 requests a minute per user (429 with Retry-After), apart from other users', async () => {
      const busy = await signUp(t);
      const calm = await signUp(t);
      const client = asUser(t, busy.cookie, busy.tenantId);
      let refused: { status: number; headers: Record<string, string> } | undefined;
      // Windows are fixed minutes aligned to the clock: if the run crosses a minute's end, the count
      // starts again, so up to two windows' worth (1,300) may be needed before one is refused.
      for (let batch = 0; batch < 26 && !refused; batch++) {
        const answers = await Promise.all(Array.from({ length: 50 }, () => client.get('/api/v1/tenant')));
        refused = answers.find((answer) => answer.status === 429);
      }
      expect(refused).toBeDefined();
      expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      await asUser(t, calm.cookie, calm.tenantId).get('/api/v1/tenant').expect(200);
    });
  });
});

describe('Ended sessions across instances', () => {
  let a: TestApp;
  let b: TestApp;
  const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

  beforeAll(async () => {
    a = await createTestApp(redis);
    b = await createTestApp(redis, { connection: a.connection });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  it('a session ended on one instance is refused on the other within one second', async () => {
    const user = await signUp(a);
    await asUser(b, user.cookie, user.tenantId).get('/api/v1/bots').expect(200); // cached on B
    await asUser(a, user.cookie, null).delete('/auth/v1/sessions/current').expect(204);
    const ended = Date.now();
    let refusedAfter: number | undefined;
    while (Date.now() - ended < 1_500) {
      const sentAfter = Date.now() - ended;
      const response = await asUser(b, user.cookie, user.tenantId).get('/api/v1/bots');
      if (response.status === 401) {
        refusedAfter = sentAfter;
        expectError(response, 401, 'INVALID_SESSION');
        break;
      }
      await sleep(50);
    }
    expect(refusedAfter).toBeDefined();
    expect(refusedAfter!).toBeLessThanOrEqual(1_000);
  });
});

describe('Log-in throttling', () => {
  let t: TestApp;
  const from = (ip: string) => ({
    logIn: (email: string, password: string) => t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ email, password }),
  });

  beforeAll(async () => {
    t = await createTestApp({ AUTH_FAILURE_LIMIT: '5', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  it('per address: past the limit every log-in from it is 429, the right password included, before it is compared', async () => {
    const user = await signUp(t);
    for (let i = 0; i < 5; i++) expectError(await from('198.51.100.1').logIn(newEmail('guess'), 'wrong password!'), 401, 'INVALID_CREDENTIALS');
    const blocked = await from('198.51.100.1').logIn(user.email, PASSWORD);
    expectError(blocked, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    // Another address is not slowed.
    await from('198.51.100.2').logIn(user.email, PASSWORD).expect(201);
  });

  it('per e-mail and address: 10 failures in 15 minutes, then 429 for that e-mail from that address only', async () => {
    const lenient = await createTestApp({ AUTH_FAILURE_LIMIT: '1000', TRUST_PROXY: 'loopback' });
    try {
      const user = await signUp(lenient);
      const login = (ip: string, password: string) =>
        lenient.http().post('/auth/v1/sessions').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ email: user.email, password });
      for (let i = 0; i < 10; i++) expectError(await login('198.51.100.10', 'wrong password!'), 401, 'INVALID_CREDENTIALS');
      expectError(await login('198.51.100.10', PASSWORD), 429, 'RATE_LIMIT_EXCEEDED');
      await login('198.51.100.11', PASSWORD).expect(201);
    } finally {
      await lenient.close();
    }
  });

  it('per e-mail: 100 failures in an hour from anywhere, then 429 for that e-mail from every address', async () => {
    const lenient = await createTestApp({ AUTH_FAILURE_LIMIT: '1000', TRUST_PROXY: 'loopback' });
    try {
      const user = await signUp(lenient);
      const other = await signUp(lenient);
      const login = (ip: string, email: string, password: string) =>
        lenient.http().post('/auth/v1/sessions').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ email, password });
      for (let batch = 0; batch < 10; batch++) {
        const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => login(`203.0.113.${batch * 10 + i + 1}`, user.email, 'wrong password!')));
        for (const answer of answers) expect(answer.status).toBe(401);
      }
      expectError(await login('192.0.2.200', user.email, PASSWORD), 429, 'RATE_LIMIT_EXCEEDED');
      await login('192.0.2.200', other.email, PASSWORD).expect(201);
    } finally {
      await lenient.close();
    }
  });
});
