import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, TestApp } from '../support/create-test-app';
import {
  expectAccessible,
  expectNoSidewaysScroll,
  freeLoopbackOrigin,
  heading,
  launchChromium,
  listenOnLoopback,
  openSignedIn,
  ownerAndAgent,
} from '../support/dashboard-browser';
import { createBot, createKey } from '../support/factories';

const SCREENSHOT = path.join(__dirname, '..', '..', 'docs', 'dashboard-identity-verification.png');

/**
 * Known visitors end to end: the owner creates the identity secret in the dashboard (an agent may
 * not), a site on 127.0.0.1 signs its user's token with it and embeds the widget, the same user on a
 * second device finds the same conversation, and the inbox shows them as verified.
 */
describe('Known visitors in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let tenantId: string;
  let ownerCookie: string;
  let agentCookie: string;
  let botId: string;
  let publicKey: string;
  /** The secret as the dashboard showed it, once. */
  let secret: string;
  let site: Server;
  let siteBase: string;

  beforeAll(async () => {
    const { port, origin } = await freeLoopbackOrigin();
    t = await createTestApp({ PUBLIC_URL: origin });
    base = await listenOnLoopback(t, port);
    browser = await launchChromium();
    ({ tenantId, ownerCookie, agentCookie } = await ownerAndAgent(t, base, 'known'));

    publicKey = (await createKey(t, tenantId, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenantId, { name: 'Known Bot', language: 'en' })).id;
    await t
      .admin()
      .post(`/admin/v1/tenants/${tenantId}/bots/${botId}/documents`)
      .send({ title: 'Plans', content: 'The Pro plan costs 49 EUR per month and includes 10,000 messages.' })
      .expect(201);

    // The tenant's own site: its server signs a token for the user named in the query, with the
    // secret the owner copied from the dashboard (a wrong one for ?user=forged).
    site = createServer((request, response) => {
      const user = new URL(request.url ?? '/', 'http://site.test').searchParams.get('user');
      void tokenFor(user).then((token) => {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        response.end(`<!doctype html><html lang="en"><head><title>Shop</title></head><body><h1>Shop</h1>
<script src="${base}/widget.js" data-bot-id="${botId}" data-key="${publicKey}"${token ? ` data-identity-token="${token}"` : ''} async></script>
</body></html>`);
      });
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteBase = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await browser?.close();
    await t?.close();
  });

  async function tokenFor(user: string | null): Promise<string | undefined> {
    if (!user) return undefined;
    const key = new TextEncoder().encode(user === 'forged' ? `idsec_${'x'.repeat(43)}` : secret);
    return new SignJWT({ email: 'grace@example.com', name: 'Grace Hopper' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(user === 'forged' ? 'user-42' : user)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(key);
  }

  const signedIn = (cookie: string, path: string, width = 1280) => openSignedIn(browser, base, { cookie, tenantId }, path, { width, height: 900 });

  const settingsOf = async () =>
    (await t.http().get('/api/v1/settings').set('Origin', base).set('Cookie', ownerCookie).set('X-Tenant-Id', tenantId).expect(200)).body.settings;

  it('lets the owner create the secret, see it once, rotate it and require verified visitors; an agent gets no such controls', async () => {
    const { page, problems } = await signedIn(ownerCookie, '/');
    await heading(page, 'Overview');
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await heading(page, 'Settings');
    await page.getByRole('heading', { name: 'Identity verification' }).waitFor();
    const required = page.getByRole('switch', { name: 'Require verified visitors' });
    expect(await required.isDisabled()).toBe(true);
    await page.getByText('Create a secret first').waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Create secret' }).click();
    await page.getByText('you will not see it again').waitFor();
    const first = (await page.getByTestId('identity-secret').textContent())!;
    expect(first).toMatch(/^idsec_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy secret' }).waitFor();
    await expectAccessible(page);

    // Rotating asks first, says what breaks, and shows the new secret once.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('stop working at once').waitFor();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Yes, rotate secret');
    await page.getByRole('button', { name: 'Yes, rotate secret' }).click();
    await page.waitForFunction(`document.querySelector('[data-testid=identity-secret]')?.textContent !== ${JSON.stringify(first)}`);
    secret = (await page.getByTestId('identity-secret').textContent())!;
    expect(secret).toMatch(/^idsec_[A-Za-z0-9_-]{43}$/);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.getByTestId('identity-secret').count()).toBe(0);

    await required.click();
    await page.getByText('On: a visitor without a valid token cannot chat').waitFor();
    expect(await settingsOf()).toMatchObject({ identityVerification: { configured: true, required: true } });

    // The signing code in each language, and the embed code with the token.
    expect(await page.getByTestId('signing-snippet').textContent()).toContain("setProtectedHeader({ alg: 'HS256' })");
    await page.getByLabel('Language').selectOption('python');
    expect(await page.getByTestId('signing-snippet').textContent()).toContain('algorithm="HS256"');
    await page.getByLabel('Language').selectOption('php');
    expect(await page.getByTestId('signing-snippet').textContent()).toContain("'HS256'");
    expect(await page.getByTestId('identity-embed').textContent()).toContain('data-identity-token=');

    // After a reload the secret is nowhere on the page: it was shown once.
    await page.reload();
    await page.getByTestId('identity-state').waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await page.getByRole('switch', { name: 'Require verified visitors' }).isChecked()).toBe(true);
    await expectAccessible(page);
    await page.setViewportSize({ width: 375, height: 800 });
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    expect(problems).toEqual([]);
    await page.context().close();

    const agent = await signedIn(agentCookie, '/settings');
    await heading(agent.page, 'Settings');
    await agent.page.getByText('Your role does not manage identity verification').waitFor();
    expect(await agent.page.getByRole('button', { name: /secret/ }).count()).toBe(0);
    expect(await agent.page.getByRole('switch').count()).toBe(0);
    await expectAccessible(agent.page);
    expect(agent.problems).toEqual([]);
    await agent.page.context().close();
  });

  const launcher = (page: Page) => page.locator('[data-chatbot-widget] >> css=button.launcher');
  const inWidget = (page: Page, text: string) => page.locator(`[data-chatbot-widget] >> text=${text}`);

  /** The visitor id of the widget session the page opens next (the launcher's click opens it). */
  const nextSession = (page: Page) =>
    page
      .waitForResponse((response) => response.url().endsWith('/api/v1/widget/sessions') && response.status() === 201)
      .then(async (response) => {
        return ((await response.json()) as { visitorId: string }).visitorId;
      });
  const ask = async (page: Page, question: string) => {
    await page.locator('[data-chatbot-widget] >> css=input[name=question]').fill(question);
    await page.keyboard.press('Enter');
    await page.locator('[data-chatbot-widget] >> css=.log > .bubble.assistant:last-child:not([aria-busy])').waitFor();
  };

  it('knows the site’s signed-in user on every device, and the inbox shows them as verified', async () => {
    const laptop = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    laptop.setDefaultTimeout(15000);
    await laptop.goto(`${siteBase}/?user=user-42`);
    const laptopVisitor = nextSession(laptop);
    await launcher(laptop).click();
    await ask(laptop, 'How much does the Pro plan cost?');
    expect(await inWidget(laptop, '49 EUR per month').count()).toBe(1);
    // An identified session keeps no anonymous visitor token in the browser.
    expect(await laptop.evaluate('localStorage.length')).toBe(0);
    // A fresh token for the same user (the page renews it): the conversation goes on, no new session.
    const sessionsOpened: string[] = [];
    laptop.on('request', (request) => request.url().endsWith('/api/v1/widget/sessions') && sessionsOpened.push(request.url()));
    await laptop.evaluate(`window.ChatbotWidget.identify(${JSON.stringify(await tokenFor('user-42'))})`);
    await laptop.waitForTimeout(300);
    expect(sessionsOpened).toEqual([]);
    expect(await inWidget(laptop, 'How much does the Pro plan cost?').count()).toBe(1);

    // Another device: a new browser context, a token for the same user: the same visitor.
    const phoneContext = await browser.newContext({ viewport: { width: 375, height: 700 } });
    const phone = await phoneContext.newPage();
    phone.setDefaultTimeout(15000);
    await phone.goto(`${siteBase}/?user=user-42`);
    const phoneVisitor = nextSession(phone);
    await launcher(phone).click();
    expect(await phoneVisitor).toBe(await laptopVisitor);
    // Their conversation follows them: the phone resumes it, the laptop's question and answer shown.
    await inWidget(phone, 'How much does the Pro plan cost?').waitFor();
    expect(await inWidget(phone, '49 EUR per month').count()).toBe(1);
    await ask(phone, 'And the Business plan?');
    // The visitor ends it on the phone: the next device starts a new one instead of resuming it.
    const phoneSession = JSON.parse(String(await phone.evaluate(`sessionStorage.getItem('chatbot-widget:${botId}')`))) as {
      token: string;
      conversationId: string;
    };
    await t
      .http()
      .post(`/api/v1/widget/conversations/${phoneSession.conversationId}/end`)
      .set('X-API-Key', publicKey)
      .set('X-Visitor-Token', phoneSession.token)
      .send({})
      .expect(200);
    await phoneContext.close();

    // A token signed with another secret: dropped; the tenant requires identity, so chat waits for a sign-in.
    const forged = await browser.newPage();
    forged.setDefaultTimeout(15000);
    await forged.goto(`${siteBase}/?user=forged`);
    await launcher(forged).click();
    await inWidget(forged, 'Chat is unavailable until you sign in on this site.').waitFor();
    expect(await forged.locator('[data-chatbot-widget] >> css=.bubble').count()).toBe(1);
    expect(await forged.locator('[data-chatbot-widget] >> css=[role=log]').getAttribute('aria-live')).toBe('polite');

    // The page signs its user in later: identify() starts a session as them at once.
    const identified = nextSession(forged);
    await forged.evaluate(`window.ChatbotWidget.identify(${JSON.stringify(await tokenFor('user-42'))})`);
    expect(await identified).toBe(await laptopVisitor);
    expect(await inWidget(forged, 'Chat is unavailable').count()).toBe(0);
    expect(await inWidget(forged, 'And the Business plan?').count()).toBe(0);
    await ask(forged, 'Does Pro include messages?');
    await forged.close();

    // The inbox: each of the person's conversations is Verified, with their name and e-mail; one lists the others.
    const { page, problems } = await signedIn(ownerCookie, '/inbox');
    await heading(page, 'Inbox');
    await page.getByLabel('Show').selectOption('');
    const items = page.locator('.inbox-list a', { hasText: 'Grace Hopper' });
    await items.nth(1).waitFor();
    expect(await items.count()).toBe(2);
    expect(await items.first().textContent()).toMatch(/^Verified Grace Hopper, grace@example\.com · With the bot/);
    await items.first().click();
    const panel = page.locator('.inbox-panel');
    await panel.locator('.badge.verified', { hasText: 'Verified' }).waitFor();
    await panel.getByText('Grace Hopper, grace@example.com').waitFor();
    await panel.getByText('your user id user-42').waitFor();
    const others = panel.getByRole('region', { name: 'Other conversations of this person' }).getByRole('link');
    await others.first().waitFor();
    expect(await others.count()).toBe(1);
    await expectAccessible(page);
    await others.first().click();
    await page.getByText('And the Business plan?').waitFor();
    await page.setViewportSize({ width: 375, height: 800 });
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    expect(problems).toEqual([]);
    await page.context().close();

    // The site's user signs out: their transcript leaves the panel; anonymous, this tenant's widget waits for a sign-in.
    await laptop.evaluate('window.ChatbotWidget.identify(null)');
    await inWidget(laptop, 'Chat is unavailable until you sign in on this site.').waitFor();
    expect(await inWidget(laptop, 'How much does the Pro plan cost?').count()).toBe(0);
    expect(await laptop.evaluate('sessionStorage.length')).toBe(0);
    await laptop.close();
  });
});
