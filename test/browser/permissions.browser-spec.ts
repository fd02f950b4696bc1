import type { Browser, Page } from 'playwright-core';
import { createTestApp, TestApp } from '../support/create-test-app';
import { freeLoopbackOrigin, heading, launchChromium, listenOnLoopback, openSignedIn, ownerAndAgent } from '../support/dashboard-browser';

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
    ({ tenantId, agentCookie } = await ownerAndAgent(t, base, 'perm'));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const signedInAsAgent = (path: string): Promise<{ page: Page; problems: string[] }> => openSignedIn(browser, base, { cookie: agentCookie, tenantId }, path);

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

    await page.getByRole('navigation').getByRole('link', { name: 'Bots' }).click();
    await heading(page, 'Bots');
    await page.getByText('Your role does not create or switch bots').waitFor();
    expect(await page.getByRole('button', { name: 'Create bot' }).count()).toBe(0);

    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await heading(page, 'Audit log');
    await page.getByText('Your role does not read the audit log').waitFor();
    // No 403 on the way: the pages did not call the routes the role is refused.
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
