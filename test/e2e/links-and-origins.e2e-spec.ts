import { expectError } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { dashboardLinkIn, SmtpSink } from '../support/smtp-sink';
import { newEmail, signUp, TestUser } from '../support/users';

const PUBLIC_URL = 'https://chat.example.com';
/** The port a development instance without PUBLIC_URL is configured with (its links name it). */
const DEVELOPMENT_PORT = '4321';
/** What a stranger sends to have a link built on their host: Host, X-Forwarded-Host, and an Origin matching them. */
const FORGED_HOST = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example' };

/**
 * API_DECISIONS part 4, Links and origins: every link the service mails or returns is built from
 * PUBLIC_URL (or, outside production without it, http://localhost:<PORT>), never from a request's
 * Host or X-Forwarded-*; the CSRF check compares Origin with PUBLIC_URL, or without it with a
 * loopback request's own origin only. The mails go through a real SMTP server.
 */
describe('Links and origins: never from the request', () => {
  let smtp: SmtpSink;
  /** The usual test instance (PUBLIC_URL http://dashboard.test): signs the users up. */
  let site: TestApp;
  /** Production behind a trusted proxy on loopback, with PUBLIC_URL and mail. */
  let production: TestApp;
  /** Development without PUBLIC_URL, with mail. */
  let development: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    site = await createTestApp();
    production = await createTestApp({ NODE_ENV: 'production', TRUST_PROXY: 'loopback', PUBLIC_URL, SMTP_URL: smtp.url }, { connection: site.connection });
    development = await createTestApp({ PUBLIC_URL: undefined, PORT: DEVELOPMENT_PORT, SMTP_URL: smtp.url }, { connection: site.connection });
    owner = await signUp(site);
  });
  afterAll(async () => {
    await development?.close();
    await production?.close();
    await site?.close();
    await smtp?.close();
  });

  /** A password-reset request to `t` with the given headers. */
  const requestReset = (t: TestApp, email: string, headers: Record<string, string>) => t.http().post('/auth/v1/password-resets').set(headers).send({ email });
  const invite = (t: TestApp, headers: Record<string, string>) =>
    t
      .http()
      .post('/api/v1/invitations')
      .set(headers)
      .set('Cookie', owner.cookie)
      .set('X-Tenant-Id', owner.tenantId)
      .send({ email: newEmail('invitee'), role: 'agent' });

  describe('production (PUBLIC_URL required)', () => {
    const https = { 'X-Forwarded-Proto': 'https' };

    it('mails the real user a reset link on PUBLIC_URL, whatever Host and X-Forwarded-Host the request names', async () => {
      const user = await signUp(site);
      // An Origin matching the forged Host is not the service's own: refused before any mail.
      expectError(await requestReset(production, user.email, { ...https, ...FORGED_HOST, Origin: 'https://evil.example' }), 403, 'CSRF_REJECTED');
      await requestReset(production, user.email, { ...https, ...FORGED_HOST, Origin: PUBLIC_URL }).expect(202);
      const link = dashboardLinkIn(await smtp.mailTo(user.email));
      expect(link.origin).toBe(PUBLIC_URL);
      expect(link.pathname).toBe('/dashboard/password-reset');
      expect(smtp.mails.filter((mail) => mail.to.includes(user.email))).toHaveLength(1);
    });

    it('returns and mails an invitation acceptUrl on PUBLIC_URL', async () => {
      const created = await invite(production, { ...https, ...FORGED_HOST, Origin: PUBLIC_URL }).expect(201);
      expect(new URL(created.body.acceptUrl).origin).toBe(PUBLIC_URL);
      expect(dashboardLinkIn(await smtp.mailTo(created.body.invitation.email)).toString()).toBe(created.body.acceptUrl);
    });

    it("the admin API's reset link is on PUBLIC_URL", async () => {
      const { body } = await production
        .admin()
        .post(`/admin/v1/users/${owner.id}/password-resets`)
        .set({ ...https, ...FORGED_HOST })
        .expect(201);
      expect(new URL(body.resetUrl).origin).toBe(PUBLIC_URL);
    });
  });

  describe('with PUBLIC_URL set, outside production', () => {
    it("refuses a signed-in change whose Origin matches the request's own Host but not PUBLIC_URL", async () => {
      const forged = { Host: 'evil.example', Origin: 'http://evil.example' };
      expectError(await requestReset(site, owner.email, forged), 403, 'CSRF_REJECTED');
      expectError(await invite(site, forged), 403, 'CSRF_REJECTED');
      // Loopback is no exception when PUBLIC_URL says what the service's origin is.
      const loopback = { Host: 'localhost:3000', Origin: 'http://localhost:3000' };
      expectError(await invite(site, loopback), 403, 'CSRF_REJECTED');
    });
  });

  describe('development without PUBLIC_URL', () => {
    const ownLink = `http://localhost:${DEVELOPMENT_PORT}`;

    it('refuses the self-origin of a request naming a host that is not loopback (a proxy forwarding any Host, DNS rebinding): no mail', async () => {
      const user = await signUp(site);
      expectError(await requestReset(development, user.email, { Host: 'evil.example', Origin: 'http://evil.example' }), 403, 'CSRF_REJECTED');
      for (const host of ['localhost.evil.example', '127.0.0.1.evil.example', 'evil.example:3000']) {
        expectError(await invite(development, { Host: host, Origin: `http://${host}` }), 403, 'CSRF_REJECTED');
      }
      // The same person's own request from loopback gets the (one) mail, on this machine's own link.
      await requestReset(development, user.email, { Host: '127.0.0.1:9999', Origin: 'http://127.0.0.1:9999' }).expect(202);
      expect(dashboardLinkIn(await smtp.mailTo(user.email)).origin).toBe(ownLink);
      expect(smtp.mails.filter((mail) => mail.to.includes(user.email))).toHaveLength(1);
    });

    it('mails a reset link on http://localhost:<PORT>, not on the Host or X-Forwarded-Host sent', async () => {
      const user = await signUp(site);
      await requestReset(development, user.email, { Host: 'localhost:9999', 'X-Forwarded-Host': 'evil.example', Origin: 'http://localhost:9999' }).expect(202);
      const link = dashboardLinkIn(await smtp.mailTo(user.email));
      expect(link.origin).toBe(ownLink);
      expect(link.pathname).toBe('/dashboard/password-reset');
    });

    it('accepts the self-origin of every loopback host, and builds the invitation acceptUrl on http://localhost:<PORT>', async () => {
      for (const host of ['localhost:9999', '127.0.0.1:8080', '[::1]:3000', 'app.localhost']) {
        const created = await invite(development, { Host: host, 'X-Forwarded-Host': 'evil.example', Origin: `http://${host}` }).expect(201);
        expect(new URL(created.body.acceptUrl).origin).toBe(ownLink);
      }
    });

    it("the admin API's reset link is on http://localhost:<PORT>", async () => {
      const { body } = await development.admin().post(`/admin/v1/users/${owner.id}/password-resets`).set(FORGED_HOST).expect(201);
      expect(new URL(body.resetUrl).origin).toBe(ownLink);
    });
  });
});
