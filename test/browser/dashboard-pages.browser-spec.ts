import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { createTestApp, TestApp } from '../support/create-test-app';
import {
  expectAccessible,
  expectNoSidewaysScroll,
  freeLoopbackOrigin,
  heading,
  launchChromium,
  listenOnLoopback,
  openPage,
} from '../support/dashboard-browser';
import { createBot, createKey } from '../support/factories';
import { dashboardLinkIn, SmtpSink } from '../support/smtp-sink';
import { sessionCookieOf } from '../support/users';
import { WebhookReceiver } from '../support/webhook-receiver';
import { DELIVERY_OPTIONS, type DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';

const NARROW = { width: 375, height: 800 };

/** The dashboard's other pages (webhooks, lead import, conversations, account, password reset) in headless Chromium. */
describe('The dashboard pages in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let smtp: SmtpSink;
  const receiver = new WebhookReceiver();
  const email = `pages-owner-${Date.now()}@example.test`;
  let password = 'correct horse battery';
  let tenantId: string;
  let cookie: string;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    await receiver.start();
    // PUBLIC_URL is the browser's origin (http://127.0.0.1:<port>): the mailed links point there. The worker delivers to the receiver on 127.0.0.1 (allowed below);
    // a failed attempt is retried an hour later, so only the Retry button sends it again here.
    const { port, origin } = await freeLoopbackOrigin();
    t = await createTestApp(
      {
        PUBLIC_URL: origin,
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Chatbots <no-reply@dashboard.test>',
        WEBHOOK_WORKER: 'true',
        WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
        WEBHOOK_RETRY_SCHEDULE: '3600',
      },
      { webhookDelivery: { pollMs: 50, timeoutMs: 2_000, tenantIds: [] } },
    );
    base = await listenOnLoopback(t, port);
    browser = await launchChromium();
    const signedUp = await t
      .http()
      .post('/auth/v1/signup')
      .set('Origin', base)
      .set('User-Agent', 'Dashboard pages test')
      .send({ email, password, name: 'Paula Pages', tenantName: 'Pages Inc' })
      .expect(201);
    cookie = sessionCookieOf(signedUp);
    tenantId = signedUp.body.memberships[0].tenant.id;
    // Creating webhook endpoints and importing leads need the Pro plan, for users too.
    await t.admin().patch(`/admin/v1/tenants/${tenantId}`).send({ plan: 'pro' }).expect(200);
    // The suites may share one database: this worker sends only this tenant's events.
    Object.assign(t.app.get<DeliveryOptions>(DELIVERY_OPTIONS), { tenantIds: [tenantId] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.stop();
    await smtp?.close();
  });

  /** A new browser context signed in as the owner (the sign-in form itself is tested in dashboard.browser-spec.ts). */
  async function signedIn(path: string, viewport?: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
    // The cookie, and the mark the dashboard leaves after a sign-in (without it, it shows the form at once).
    const context = await browser.newContext({
      viewport: viewport ?? { width: 1100, height: 900 },
      storageState: { cookies: [], origins: [{ origin: base, localStorage: [{ name: 'dashboard.signedIn', value: '1' }] }] },
    });
    const [name, value] = cookie.split('=');
    await context.addCookies([{ name, value, url: base }]);
    const opened = await openPage(browser, context);
    await opened.page.goto(`${base}/dashboard${path}`);
    return opened;
  }

  /** Drops the expected 400 (answer and console line) of a refused submission; anything else stays. */
  const withoutRefusal = (problems: string[], path: string) =>
    problems.filter((problem) => !(problem.startsWith('400: ') && problem.endsWith(path)) && !problem.includes('400 (Bad Request)'));

  it('webhooks: creates an endpoint, shows its secret once, sends a test event, retries the failed delivery, rotates the secret, deletes it', async () => {
    const { page, problems } = await signedIn('/');
    await heading(page, 'Overview');
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await heading(page, 'Webhooks');
    await page.getByText('No endpoints yet.').waitFor();
    await expectAccessible(page);

    // The API's refusal shows next to the field it names, and what was typed stays.
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await page.getByLabel('Description (optional)').fill('CRM');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.locator('input[name=url][aria-invalid=true]').waitFor();
    expect(await page.getByLabel('Description (optional)').inputValue()).toBe('CRM');
    await expectAccessible(page);
    expect(withoutRefusal(problems, '/api/v1/webhooks')).toEqual([]);
    problems.length = 0;

    const url = receiver.url('/dashboard-hook');
    await page.getByLabel('Endpoint URL').fill(url);
    expect(await page.getByRole('checkbox', { name: /^lead\.created:/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /^webhook\.test:/ }).check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await page.evaluate('document.activeElement.id')).toBe('secret-title');
    await page.getByRole('heading', { level: 2, name: url, exact: true }).waitFor();
    expect(await page.getByText('events: lead.created, webhook.test').count()).toBe(1);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);

    // A receiver failing first: the delivery stays pending with its attempt and answer shown.
    receiver.respond = (_request, response) => response.writeHead(503).end('busy');
    await page.getByRole('button', { name: `Send test event to ${url}` }).click();
    await page.getByRole('status').getByText('Test event queued.').waitFor();
    const row = page.getByTestId('delivery').first();
    await row.getByTestId('delivery-response').getByText('503').waitFor();
    expect(await row.getByTestId('delivery-status').textContent()).toBe('pending');
    expect(await row.getByTestId('delivery-attempts').textContent()).toBe('1');
    await expectAccessible(page);

    receiver.respond = (_request, response) => response.writeHead(200).end('ok');
    await row.getByRole('button', { name: /^Retry webhook\.test/ }).click();
    await row.getByTestId('delivery-status').getByText('succeeded').waitFor();
    expect(await row.getByTestId('delivery-attempts').textContent()).toBe('2');
    expect(await row.getByTestId('delivery-response').textContent()).toBe('200');
    // The secret the page showed is the one the delivery is signed with.
    const delivered = receiver.received.at(-1)!;
    const payload = new Webhook(secret).verify(delivered.body, delivered.headers as Record<string, string>) as { type: string };
    expect(payload.type).toBe('webhook.test');

    // Readable on a phone: nothing wider than the screen (the table scrolls in its own box).
    await page.setViewportSize(NARROW);
    await expectNoSidewaysScroll(page);
    await expectAccessible(page);
    await page.setViewportSize({ width: 1100, height: 900 });

    await page.getByRole('button', { name: `Rotate secret of ${url}` }).click();
    await page.getByRole('heading', { name: `New signing secret of ${url}` }).waitFor();
    const rotated = (await page.getByTestId('webhook-secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.reload();
    await heading(page, 'Webhooks');
    await page.getByRole('heading', { level: 2, name: url, exact: true }).waitFor();
    expect(await page.content()).not.toContain(rotated.slice(6));

    // Deleting asks first; the confirming button has the focus, so Enter answers.
    await page.getByRole('button', { name: `Delete ${url}` }).click();
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Yes, delete endpoint');
    await page.keyboard.press('Enter');
    await page.getByText('No endpoints yet.').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("members: an owner changes a member's role, then removes them with the API keys they created", async () => {
    // A second member (an admin) with a key of their own, through the API.
    const owner = (path: string) => t.http().post(path).set('Cookie', cookie).set('Origin', base).set('X-Tenant-Id', tenantId);
    const memberEmail = `pages-member-${Date.now()}@example.test`;
    const invited = await owner('/api/v1/invitations').send({ email: memberEmail, role: 'admin' }).expect(201);
    const token = new URL(invited.body.acceptUrl).searchParams.get('token');
    const accepted = await t
      .http()
      .post('/auth/v1/invitations/accept')
      .set('Origin', base)
      .send({ token, name: 'Morgan Member', password: 'member passphrase 42' })
      .expect(201);
    const created = await t
      .http()
      .post('/api/v1/api-keys')
      .set('Cookie', sessionCookieOf(accepted))
      .set('Origin', base)
      .set('X-Tenant-Id', tenantId)
      .send({ name: 'Morgan key', type: 'secret', scopes: ['bots:read'] })
      .expect(201);
    const key = created.body.key as string;
    await t.http().get('/api/v1/bots').set('X-API-Key', key).expect(200);

    const { page, problems } = await signedIn('/members', { width: 1280, height: 900 });
    await heading(page, 'Members');
    const role = page.getByRole('combobox', { name: 'Role of Morgan Member' });
    await role.waitFor();
    // The only owner can be neither demoted nor removed, and the page says so before any click.
    expect(await page.getByRole('combobox', { name: 'Role of Paula Pages' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Leave this tenant' }).isDisabled()).toBe(true);
    await expectAccessible(page);

    await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/api/v1/members/')),
      role.selectOption('agent'),
    ]);
    await page.waitForFunction(`document.querySelector('select[aria-label="Role of Morgan Member"]')?.value === 'agent'`);
    const members = await t.http().get('/api/v1/members').set('Cookie', cookie).set('X-Tenant-Id', tenantId).expect(200);
    expect(members.body.members.find((each: { email: string }) => each.email === memberEmail).role).toBe('agent');
    expect(await role.inputValue()).toBe('agent');

    // Removing asks first, naming the person; the confirming button has the focus.
    await page.getByRole('button', { name: 'Remove Morgan Member' }).click();
    const confirm = page.getByRole('group', { name: 'Remove Morgan Member?' });
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Yes, remove Morgan Member');
    const alsoKeys = confirm.getByRole('checkbox', { name: 'Also delete the 1 API key they created' });
    expect(await alsoKeys.isChecked()).toBe(false);
    await expectAccessible(page);
    await alsoKeys.check();
    await confirm.getByRole('button', { name: 'Yes, remove Morgan Member' }).click();
    await page.getByRole('rowheader', { name: 'Morgan Member' }).waitFor({ state: 'detached' });
    await t.http().get('/api/v1/bots').set('X-API-Key', key).expect(401);
    await expectAccessible(page);

    await page.setViewportSize(NARROW);
    await expectNoSidewaysScroll(page);
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('imports leads from a CSV file: a bad row is named by its line and nothing is stored; the fixed file imports both', async () => {
    const { page, problems } = await signedIn('/leads', NARROW);
    await heading(page, 'Leads');
    await page.getByText('No leads match').waitFor();
    await expectAccessible(page);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    const file = (text: string) => ({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });

    await page
      .getByLabel('CSV file')
      .setInputFiles(file('name,email,company\r\nAda Lovelace,ada@example.test,Engines\r\nGrace Hopper,not-an-address,Navy\r\n'));
    await page.getByRole('button', { name: 'Import leads' }).click();
    const listed = page.getByTestId('import-problems');
    await listed.waitFor();
    expect(await listed.locator('li').allTextContents()).toEqual(['Line 3: email must be a valid e-mail address']);
    expect(await page.getByLabel('CSV file').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);
    expect(await t.prisma.lead.count({ where: { tenantId } })).toBe(0);
    expect(withoutRefusal(problems, '/api/v1/leads/import')).toEqual([]);
    problems.length = 0;

    await page
      .getByLabel('CSV file')
      .setInputFiles(file('Name,E-mail,Company,Tags\r\nAda Lovelace,ada@example.test,Engines,vip; import\r\nGrace Hopper,grace@example.test,Navy,\r\n'));
    await page.getByRole('button', { name: 'Import leads' }).click();
    await page.getByRole('status').getByText('Imported 2 leads from leads.csv.').waitFor();
    await page.getByRole('rowheader', { name: 'Ada Lovelace' }).waitFor();
    await page.getByRole('rowheader', { name: 'Grace Hopper' }).waitFor();
    const ada = await t.prisma.lead.findFirstOrThrow({ where: { tenantId, email: 'ada@example.test' } });
    expect({ source: ada.source, company: ada.company, tags: ada.tags }).toEqual({ source: 'import', company: 'Engines', tags: ['vip', 'import'] });
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('conversations: filters by status and shows a transcript', async () => {
    const bot = await createBot(t, tenantId, { name: 'Shop helper' });
    const publicKey = (await createKey(t, tenantId, { type: 'public', scopes: [] })).key;
    const converse = async (question: string, end: boolean) => {
      const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId: bot.id }).expect(201)).body
        .visitorToken as string;
      const visitor = { 'X-API-Key': publicKey, 'X-Visitor-Token': token };
      const id = (await t.http().post('/api/v1/widget/conversations').set(visitor).send({}).expect(201)).body.conversation.id as string;
      await t.http().post(`/api/v1/widget/conversations/${id}/messages`).set(visitor).send({ content: question }).expect(201);
      if (end) await t.http().post(`/api/v1/widget/conversations/${id}/end`).set(visitor).send({}).expect(200);
    };
    await converse('Do you ship to Norway?', true);
    await converse('What does the Pro plan cost?', false);

    const { page, problems } = await signedIn('/conversations');
    await heading(page, 'Conversations');
    const links = page.locator('ul.conversations a');
    await links.nth(1).waitFor();
    expect(await links.count()).toBe(2);
    await expectAccessible(page);
    await page.getByLabel('Status').selectOption('ended');
    await page.waitForFunction('document.querySelectorAll("ul.conversations a").length === 1');
    expect(await links.first().textContent()).toMatch(/ended · 3 messages$/);
    await links.first().click();
    await page.getByRole('heading', { level: 2, name: 'Transcript' }).waitFor();
    const transcript = page.locator('ol.transcript li');
    await transcript.getByText('Do you ship to Norway?').waitFor();
    expect(await transcript.first().textContent()).toMatch(/^Bot: /);
    expect(await transcript.nth(1).textContent()).toBe('Visitor: Do you ship to Norway?');
    expect(await transcript.nth(2).textContent()).toMatch(/^Bot: /);
    await expectAccessible(page);
    await page.setViewportSize(NARROW);
    await expectNoSidewaysScroll(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('account: lists the sessions and ends another one, changes the name and the password', async () => {
    const otherSession = async (userAgent: string) =>
      sessionCookieOf(await t.http().post('/auth/v1/sessions').set('Origin', base).set('User-Agent', userAgent).send({ email, password }).expect(201));
    const laptop = await otherSession('Firefox on the old laptop');
    const phone = await otherSession('Safari on the phone');

    const { page, problems } = await signedIn('/account');
    await heading(page, 'Account');
    await page.getByRole('button', { name: /^End session: Firefox on the old laptop/ }).waitFor();
    await page.getByRole('button', { name: /^End session: Safari on the phone/ }).waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: /^End session: Firefox on the old laptop/ }).click();
    await page.getByRole('button', { name: /^End session: Firefox on the old laptop/ }).waitFor({ state: 'detached' });
    await t.http().get('/auth/v1/me').set('Cookie', laptop).expect(401);
    await t.http().get('/auth/v1/me').set('Cookie', phone).expect(200);

    const newPassword = 'a brand new passphrase';
    await page.getByLabel('Name', { exact: true }).fill('Paula Renamed');
    await page.getByLabel('New password (optional)').fill(newPassword);
    await page.getByLabel('Current password').fill(password);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    password = newPassword;
    // A new password ends the other sessions; this one goes on.
    await page.getByRole('button', { name: /^End session: Safari on the phone/ }).waitFor({ state: 'detached' });
    await t.http().get('/auth/v1/me').set('Cookie', phone).expect(401);
    const me = await t.http().get('/auth/v1/me').set('Cookie', cookie).expect(200);
    expect(me.body.user.name).toBe('Paula Renamed');
    await t.http().post('/auth/v1/sessions').set('Origin', base).send({ email, password: newPassword }).expect(201);
    expect(await page.getByLabel('Current password').inputValue()).toBe('');
    await expectAccessible(page);
    await page.setViewportSize(NARROW);
    await expectNoSidewaysScroll(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('resets a forgotten password through the mailed link, then signs in with the new one', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${base}/dashboard`);
    await heading(page, 'Sign in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await heading(page, 'Reset your password');
    await expectAccessible(page);
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page
      .getByRole('status')
      .getByText(/a reset link is on its way/)
      .waitFor();

    const link = dashboardLinkIn(await smtp.mailTo(email));
    expect(link.origin).toBe(base);
    await page.goto(link.href);
    await heading(page, 'Choose a new password');
    await expectAccessible(page);
    const reset = 'reset by mail 2024';
    await page.getByLabel('New password').fill(reset);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page
      .getByRole('status')
      .getByText(/Your password is changed/)
      .waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await heading(page, 'Sign in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(reset);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Overview');
    // Every earlier session ended with the reset.
    await t.http().get('/auth/v1/me').set('Cookie', cookie).expect(401);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
