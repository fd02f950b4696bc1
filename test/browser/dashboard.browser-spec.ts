import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createTestApp, TestApp } from '../support/create-test-app';
import { expectAccessible, freeLoopbackOrigin, heading, launchChromium, listenOnLoopback, openPage as openPageIn } from '../support/dashboard-browser';

const DOCS = path.join(__dirname, '..', '..', 'docs');
const PASSWORD = 'correct horse battery';

describe('The dashboard in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const email = `owner-${Date.now()}@example.test`;
  let tenantId: string;

  beforeAll(async () => {
    // PUBLIC_URL is the browser's origin (http://127.0.0.1:<port>), as behind one host name: the returned links point there.
    const { port, origin } = await freeLoopbackOrigin();
    t = await createTestApp({ PUBLIC_URL: origin });
    base = await listenOnLoopback(t, port);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  const openPage = (context?: BrowserContext) => openPageIn(browser, context);

  it('offers the sign-in form without a session, on /dashboard and on a deep link', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/dashboard/bots`);
    await heading(page, 'Sign in');
    await page.getByLabel('E-mail').waitFor();
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('signs up, creates a bot, adds a document, asks it a question, and switching the bot off removes it from the demo page', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/dashboard`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading(page, 'Create your account');
    await expectAccessible(page);
    await page.getByLabel('Your name').fill('Olivia Owner');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByLabel('Company or team name').fill('Acme Support');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The API's error shows next to the field it names, and nothing typed is lost.
    await page.locator('input[name=password][aria-invalid=true]').waitFor();
    const describedBy = (await page.getByLabel('Password').getAttribute('aria-describedby'))!.split(' ').pop();
    expect(await page.locator(`#${describedBy?.replace(/:/g, '\\:')}`).textContent()).toMatch(/^Error: .*10/);
    expect(await page.getByLabel('Company or team name').inputValue()).toBe('Acme Support');
    // That 400 was the point; from here on nothing may fail.
    expect(problems).toEqual([expect.stringMatching(/^400: .*\/auth\/v1\/signup$/), expect.stringContaining('400 (Bad Request)')]);
    problems.length = 0;
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading(page, 'Overview');
    await page.getByRole('heading', { name: /Acme Support: plan free/ }).waitFor();
    await page.getByRole('heading', { name: 'Getting started' }).waitFor();
    await page.locator('.chart .uplot').waitFor();
    tenantId = (await t.prisma.tenant.findFirstOrThrow({ where: { name: 'Acme Support' }, orderBy: { createdAt: 'desc' } })).id;
    await expectAccessible(page);
    await page.screenshot({ path: path.join(DOCS, 'dashboard-overview.png'), fullPage: true });

    await page.getByRole('navigation').getByRole('link', { name: 'Bots' }).click();
    await heading(page, 'Bots');
    await page.getByText('No bots yet').waitFor();
    await expectAccessible(page);
    await page.getByLabel('Bot name').fill('Helpdesk');
    await page.getByRole('button', { name: 'Create bot' }).click();
    await heading(page, 'Helpdesk');
    await page.getByTestId('embed-snippet').waitFor();
    await page.getByRole('button', { name: 'Add a document' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Opening hours');
    await page.getByLabel('Content', { exact: true }).fill('Our support desk is open Monday to Friday from 9 to 17 CET. On weekends the desk is closed.');
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByText('Opening hours').waitFor();
    await page.getByLabel('Question', { exact: true }).fill('When is the support desk open?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByTestId('answer').waitFor();
    expect(await page.getByTestId('answer').textContent()).toContain('Monday to Friday');
    expect(await page.getByTestId('sources').textContent()).toBe('Sources: Opening hours');
    await expectAccessible(page);
    const snippet = (await page.getByTestId('embed-snippet').textContent())!;
    expect(snippet).toMatch(new RegExp(`^<script src="${base}/widget.js" data-bot-id="[0-9a-f-]{36}" data-key="svc_pk_[0-9A-Za-z]{33}" async></script>$`));
    await page.getByRole('heading', { name: 'Embed on your site' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(DOCS, 'dashboard-bot-settings.png'), fullPage: true });
    const [, botId, key] = snippet.match(/data-bot-id="([^"]+)" data-key="([^"]+)"/)!;

    const demo = await browser.newPage();
    await demo.goto(`${base}/widget/demo?botId=${botId}&key=${key}`);
    await demo.locator('[data-chatbot-widget] >> css=button.launcher').waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Bots' }).click();
    await page.getByRole('button', { name: 'Switch off Helpdesk' }).click();
    await page.getByRole('button', { name: 'Switch on Helpdesk' }).waitFor();
    await expectAccessible(page);

    const loaded = demo.waitForResponse((response) => response.url().includes(`/api/v1/widget/bots/${botId}`));
    await demo.reload();
    expect((await loaded).status()).toBe(409);
    await demo.waitForTimeout(200);
    expect(await demo.locator('[data-chatbot-widget]').count()).toBe(0);
    await demo.close();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  /** Signs the owner in through the form (a new browser context: a new session). */
  async function signIn(): Promise<{ page: Page; problems: string[] }> {
    const opened = await openPage();
    await opened.page.goto(`${base}/dashboard`);
    await opened.page.getByLabel('E-mail').fill(email);
    await opened.page.getByLabel('Password').fill(PASSWORD);
    await opened.page.getByRole('button', { name: 'Sign in' }).click();
    await heading(opened.page, 'Overview');
    return opened;
  }

  it('shows a signed-in owner their tenant with no console error and no failed request', async () => {
    const { page, problems } = await signIn();
    await page.goto(`${base}/dashboard`);
    await page.getByRole('heading', { name: /Acme Support: plan free/ }).waitFor();
    await page.locator('.chart .uplot').waitFor();
    expect(await page.getByLabel('Tenant').inputValue()).toBe(tenantId);
    // The switcher sits in the dark top bar: its text must not inherit the bar's white.
    const { color, background } = await page.getByLabel('Tenant').evaluate((select) => {
      const view = select.ownerDocument.defaultView as { getComputedStyle(element: unknown): { color: string; backgroundColor: string } };
      const style = view.getComputedStyle(select);
      return { color: style.color, background: style.backgroundColor };
    });
    expect(color).not.toBe(background);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('creates a secret key and shows it once; the key calls /api/v1/verify', async () => {
    await t.admin().patch(`/admin/v1/tenants/${tenantId}`).send({ plan: 'pro' }).expect(200);
    const { page, problems } = await signIn();
    await page.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await heading(page, 'API keys');
    await page.getByLabel('Key name').fill('CRM sync');
    await page.getByLabel('leads:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^svc_sk_[0-9A-Za-z]{33}$/);
    await expectAccessible(page);
    await page.screenshot({ path: path.join(DOCS, 'dashboard-key-shown-once.png') });
    const verified = await t.http().get('/api/v1/verify').set('X-API-Key', key).expect(200);
    expect(verified.body.tenant.id).toBe(tenantId);

    await page.reload();
    await page.getByRole('heading', { name: 'CRM sync' }).waitFor();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    await page.getByRole('button', { name: 'Activity, 30 days' }).first().click();
    await page.locator('.chart .uplot').waitFor();
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('invites a member who accepts in a second browser, and the audit log shows both the key and the invitation', async () => {
    const { page, problems } = await signIn();
    await page.getByRole('navigation').getByRole('link', { name: 'Members' }).click();
    await heading(page, 'Members');
    const invited = `agent-${Date.now()}@example.test`;
    await page.getByLabel('E-mail').fill(invited);
    await page.getByLabel('Role', { exact: true }).selectOption('agent');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const acceptUrl = (await page.getByTestId('accept-url').textContent())!;
    expect(acceptUrl).toMatch(new RegExp(`^${base}/dashboard/invitations/accept\\?token=`));
    await expectAccessible(page);

    const second = await openPage();
    await second.page.goto(acceptUrl);
    await heading(second.page, 'Accept your invitation');
    await expectAccessible(second.page);
    await second.page.getByLabel('Your name').fill('Alex Agent');
    await second.page.getByLabel('Password').fill('agent password 123');
    await second.page.getByRole('button', { name: 'Accept invitation' }).click();
    await heading(second.page, 'Overview');
    expect(await second.page.getByLabel('Tenant').locator('option:checked').textContent()).toBe('Acme Support (agent)');
    expect(second.problems).toEqual([]);
    await second.page.context().close();

    await page.reload();
    await page.getByRole('cell', { name: invited }).or(page.getByText(invited).first()).first().waitFor();
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await heading(page, 'Audit log');
    await page.getByRole('rowheader', { name: 'invitation.created' }).waitFor();
    await page.getByRole('rowheader', { name: 'api_key.created' }).first().waitFor();
    await page.getByRole('rowheader', { name: 'member.added' }).first().waitFor();
    await page.getByLabel(/Action/).fill('invitation.created');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('rowheader', { name: 'api_key.created' }).first().waitFor({ state: 'detached' });
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('exports the leads as CSV', async () => {
    const created = await t
      .admin()
      .post(`/admin/v1/tenants/${tenantId}/api-keys`)
      .send({ name: 'lead writer', scopes: ['leads:write'] })
      .expect(201);
    await t.http().post('/api/v1/leads').set('X-API-Key', created.body.key).send({ name: 'Lena Lead', email: 'lena@example.test' }).expect(201);
    const { page, problems } = await signIn();
    await page.getByRole('navigation').getByRole('link', { name: 'Leads' }).click();
    await heading(page, 'Leads');
    await page.getByRole('rowheader', { name: 'Lena Lead' }).waitFor();
    await expectAccessible(page);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    expect(readFileSync(file, 'utf8')).toContain('lena@example.test');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('can be used by keyboard alone: sign in, reach the bots page, create a bot', async () => {
    const { page, problems } = await openPage();
    await page.goto(`${base}/dashboard`);
    await heading(page, 'Sign in');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.getAttribute("type")')).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await heading(page, 'Overview');
    // Tab through the frame to the Bots link, then Enter.
    for (let step = 0; step < 15; step += 1) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement.textContent')) === 'Bots') break;
    }
    await page.keyboard.press('Enter');
    await heading(page, 'Bots');
    expect(await page.evaluate('document.activeElement.tagName')).toBe('H1');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.getAttribute("name")')).toBe('name');
    await page.keyboard.type('Keyboard bot');
    await page.keyboard.press('Enter');
    await heading(page, 'Keyboard bot');
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
