import type { Browser, Page } from 'playwright-core';
import { createTestApp, TestApp } from '../support/create-test-app';
import { freeLoopbackOrigin, heading, launchChromium, listenOnLoopback, openPage } from '../support/dashboard-browser';
import { sessionCookieOf } from '../support/users';

/** The dashboard shows a member what the server says its role may do (the membership's scopes and capabilities). */
describe('The dashboard follows the membership’s permissions', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let tenantId: string;
  let agentCookie: string;

  beforeAll(async () => {
    const { port, origin } = await freeLoopbackOrigin();
    t = await createTestApp({ PUBLIC_URL: origin });
    base = await listenOnLoopback(t, port);
    browser = await launchChromium();
    const owner = await t
      .http()
      .post('/auth/v1/signup')
      .set('Origin', base)
      .send({ email: `perm-owner-${Date.now()}@example.test`, password: 'correct horse battery', name: 'Oscar Owner', tenantName: 'Perm Inc' })
      .expect(201);
    tenantId = owner.body.memberships[0].tenant.id;
    const invited = await t
      .http()
      .post('/api/v1/invitations')
      .set('Origin', base)
      .set('Cookie', sessionCookieOf(owner))
      .set('X-Tenant-Id', tenantId)
      .send({ email: `perm-agent-${Date.now()}@example.test`, role: 'agent' })
      .expect(201);
    const token = new URL(invited.body.acceptUrl).searchParams.get('token');
    const accepted = await t
      .http()
      .post('/auth/v1/invitations/accept')
      .set('Origin', base)
      .send({ token, name: 'Alex Agent', password: 'agent password 123' })
      .expect(201);
    agentCookie = sessionCookieOf(accepted);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedInAsAgent(path: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({
      viewport: { width: 1100, height: 900 },
      storageState: {
        cookies: [],
        origins: [
          {
            origin: base,
            localStorage: [
              { name: 'dashboard.signedIn', value: '1' },
              { name: 'dashboard.tenantId', value: tenantId },
            ],
          },
        ],
      },
    });
    const [name, value] = agentCookie.split('=');
    await context.addCookies([{ name, value, url: base }]);
    const opened = await openPage(browser, context);
    await opened.page.goto(`${base}/dashboard${path}`);
    return opened;
  }

  it('gives an agent no key controls and no invitation form, and asks the API for nothing the role may not read', async () => {
    const { page, problems } = await signedInAsAgent('/api-keys');
    await heading(page, 'API keys');
    await page.getByText('Your role does not manage API keys').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await page.getByLabel('Key name').count()).toBe(0);

    await page.getByRole('navigation').getByRole('link', { name: 'Members' }).click();
    await heading(page, 'Members');
    await page.getByTestId('member').first().waitFor();
    expect(await page.getByRole('heading', { name: 'Invite someone' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: /^Role of / }).count()).toBe(0);
    await page.getByRole('button', { name: 'Leave this tenant' }).waitFor();
    // No 403 on the way: the pages did not call the routes the role is refused.
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
