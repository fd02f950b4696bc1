import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createBot, createKey, createTenant, TestTenant } from '../support/factories';

/** Debian's chromium: a browser download is neither possible nor wanted here (.ci/run installs it). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = path.join(__dirname, '..', '..', 'docs', 'widget.png');

describe('The chat widget in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let tenant: TestTenant;
  let publicKey: string;
  let botId: string;

  beforeAll(async () => {
    t = await createTestApp();
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tenant = await createTenant(t, { plan: 'pro' });
    publicKey = (await createKey(t, tenant.id, { type: 'public', scopes: [] })).key;
    botId = (await createBot(t, tenant.id, { name: 'Acme Assistant', primaryColor: '#0f766e', language: 'en' })).id;
    await t
      .http()
      .patch(`/api/v1/bots/${botId}/settings`)
      .set('X-API-Key', tenant.key)
      .send({ welcomeMessage: 'Hi! Ask me about our plans.', suggestedQuestions: ['What does the Pro plan cost?'] })
      .expect(200);
    await t
      .admin()
      .post(`/admin/v1/tenants/${tenant.id}/bots/${botId}/documents`)
      .send({
        title: 'Plans and pricing',
        content: 'The Pro plan costs 49 EUR per month and includes 10,000 messages.\n\nThe Business plan costs 199 EUR per month.',
      })
      .expect(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  const openDemo = async (bot = botId, key = publicKey): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    page.setDefaultTimeout(15000);
    await page.goto(`${base}/widget/demo?botId=${bot}&key=${key}`);
    return page;
  };
  const launcher = (page: Page) => page.locator('[data-chatbot-widget] >> css=button.launcher');
  const panel = (page: Page) => page.locator('[data-chatbot-widget] >> css=[role=dialog]');

  it('opens, greets, answers a question from the knowledge base with its source, and takes the lead form', async () => {
    const page = await openDemo();
    await launcher(page).click();
    await expect(panel(page).isVisible()).resolves.toBe(true);
    await page.locator('[data-chatbot-widget] >> text=Hi! Ask me about our plans.').waitFor();
    await page.locator('[data-chatbot-widget] >> css=input[name=question]').fill('How much does the Pro plan cost?');
    await page.keyboard.press('Enter');
    const reply = page.locator('[data-chatbot-widget] >> css=.bubble.assistant').last();
    await reply.locator('css=.sources').waitFor();
    expect(await reply.textContent()).toContain('49 EUR per month');
    expect(await reply.locator('css=.sources').textContent()).toBe('Sources: Plans and pricing');
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    await page.locator('[data-chatbot-widget] >> css=button.lead-toggle').click();
    await page.locator('[data-chatbot-widget] >> css=form.lead input[name=name]').fill('Browser Visitor');
    await page.locator('[data-chatbot-widget] >> css=form.lead input[name=email]').fill('browser.visitor@example.com');
    await page.locator('[data-chatbot-widget] >> css=form.lead button[type=submit]').click();
    await page.locator('[data-chatbot-widget] >> text=Thank you! We will get back to you.').waitFor();
    const leads = (await t.http().get('/api/v1/leads?search=browser.visitor').set('X-API-Key', tenant.key).expect(200)).body.leads;
    expect(leads).toEqual([expect.objectContaining({ name: 'Browser Visitor', source: 'widget', botId })]);
    await page.close();
  });

  it('hands the conversation to a person and shows their reply, with their name, without reloading', async () => {
    const bot = (await createBot(t, tenant.id, { name: 'Handoff Bot', language: 'en' })).id;
    await t
      .http()
      .patch(`/api/v1/bots/${bot}/settings`)
      .set('X-API-Key', tenant.key)
      .send({ handoff: { enabled: true, message: 'A person will join you here.' } })
      .expect(200);
    const page = await openDemo(bot);
    await launcher(page).click();
    await page.locator('[data-chatbot-widget] >> css=button.handoff').click();
    await page.locator('[data-chatbot-widget] >> text=A person will join you here.').waitFor();
    const conversation = (await t.http().get(`/api/v1/conversations?botId=${bot}&status=handed_off`).set('X-API-Key', tenant.key).expect(200)).body
      .conversations[0];
    await t
      .http()
      .post(`/api/v1/conversations/${conversation.id}/messages`)
      .set('X-API-Key', tenant.key)
      .send({ content: 'Hello, I am here to help.', authorName: 'Sam' })
      .expect(201);
    const reply = page.locator('[data-chatbot-widget] >> css=.bubble.agent');
    await reply.waitFor();
    expect(await reply.locator('css=.author').textContent()).toBe('Sam');
    expect(await reply.textContent()).toContain('Hello, I am here to help.');
    await page.close();
  });

  it('is usable with the keyboard: Tab reaches the launcher, Enter opens, the question field has focus and a label, Escape closes', async () => {
    const page = await openDemo();
    await launcher(page).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.getAttribute("data-chatbot-widget")')).toBe(botId);
    await page.keyboard.press('Enter');
    await expect(panel(page).isVisible()).resolves.toBe(true);
    expect(await launcher(page).getAttribute('aria-expanded')).toBe('true');
    expect(await page.locator('[data-chatbot-widget]').evaluate((host) => host.shadowRoot?.activeElement?.getAttribute('name'))).toBe('question');
    expect(await page.locator('[data-chatbot-widget] >> css=label[for=chat-question]').textContent()).toBe('Your question');
    await page.keyboard.press('Escape');
    await expect(panel(page).isVisible()).resolves.toBe(false);
    expect(await launcher(page).getAttribute('aria-expanded')).toBe('false');
    await page.close();
  });

  it("speaks the bot's language, says so kindly when the month's messages are used up, and keeps the conversation over a reload", async () => {
    const german = (await createBot(t, tenant.id, { name: 'Hilfe', primaryColor: '#fde047', language: 'de' })).id;
    const page = await openDemo(german);
    await launcher(page).waitFor();
    expect(await launcher(page).getAttribute('aria-label')).toBe('Chat öffnen');
    await launcher(page).click();
    expect(await panel(page).getAttribute('lang')).toBe('de');
    expect(await panel(page).getAttribute('aria-label')).toBe('Hilfe');
    await page.locator('[data-chatbot-widget] >> css=input[name=question]').fill('Was kostet Pro?');
    await page.keyboard.press('Enter');
    await page.locator('[data-chatbot-widget] >> css=.log > .bubble.assistant:last-child:not([aria-busy])').waitFor();

    await page.route('**/api/v1/widget/conversations/*/messages', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 429,
            contentType: 'application/json',
            headers: { 'Retry-After': '3600' },
            body: JSON.stringify({ error: { code: 'MESSAGE_LIMIT_REACHED', message: 'The monthly message limit is reached.' } }),
          })
        : route.continue(),
    );
    await page.locator('[data-chatbot-widget] >> css=input[name=question]').fill('Noch eine Frage');
    await page.keyboard.press('Enter');
    await page.locator('[data-chatbot-widget] >> text=Gerade zu viele Nachrichten. Bitte später erneut versuchen.').waitFor();

    await page.reload();
    await launcher(page).click();
    await page.locator('[data-chatbot-widget] >> text=Was kostet Pro?').waitFor();
    await page.close();
  });

  it('keeps focus in the dialog after the lead form is sent, so Escape still closes it', async () => {
    const page = await openDemo();
    await launcher(page).click();
    await page.locator('[data-chatbot-widget] >> text=Hi! Ask me about our plans.').waitFor();
    await page.locator('[data-chatbot-widget] >> css=button.lead-toggle').click();
    await page.locator('[data-chatbot-widget] >> css=form.lead input[name=name]').fill('Focus Visitor');
    await page.locator('[data-chatbot-widget] >> css=form.lead input[name=email]').fill('focus.visitor@example.com');
    await page.locator('[data-chatbot-widget] >> css=form.lead button[type=submit]').press('Enter');
    await page.locator('[data-chatbot-widget] >> text=Thank you! We will get back to you.').waitFor();
    expect(await page.locator('[data-chatbot-widget]').evaluate((host) => host.shadowRoot?.activeElement?.textContent)).toBe(
      'Thank you! We will get back to you.',
    );
    await page.keyboard.press('Escape');
    await expect(panel(page).isVisible()).resolves.toBe(false);
    expect(await page.locator('[data-chatbot-widget]').evaluate((host) => host.shadowRoot?.activeElement?.classList.contains('launcher'))).toBe(true);
    await page.close();
  });

  it('keeps the conversation readable while the lead form is open, and pads the thank-you line', async () => {
    const page = await openDemo();
    await launcher(page).click();
    await page.locator('[data-chatbot-widget] >> text=Hi! Ask me about our plans.').waitFor();
    await page.locator('[data-chatbot-widget] >> css=button.lead-toggle').click();
    const log = page.locator('[data-chatbot-widget] >> css=.log');
    expect((await log.boundingBox())!.height).toBeGreaterThanOrEqual(150);
    // The form scrolls inside the panel: its submit button is reachable and the panel stays on screen.
    const submit = page.locator('[data-chatbot-widget] >> css=form.lead button[type=submit]');
    await submit.scrollIntoViewIfNeeded();
    const box = (await panel(page).boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    await page.locator('[data-chatbot-widget] >> css=form.lead input[name=name]').fill('Layout Visitor');
    await page.locator('[data-chatbot-widget] >> css=form.lead input[name=email]').fill('layout.visitor@example.com');
    await submit.click();
    const thanks = page.locator('[data-chatbot-widget] >> text=Thank you! We will get back to you.');
    await thanks.waitFor();
    const padding = await thanks.evaluate((line) => {
      const style = (line.ownerDocument.defaultView as { getComputedStyle(element: unknown): { paddingLeft: string; paddingTop: string } }).getComputedStyle(
        line,
      );
      return { left: parseFloat(style.paddingLeft), top: parseFloat(style.paddingTop) };
    });
    expect(padding.left).toBeGreaterThanOrEqual(8);
    expect(padding.top).toBeGreaterThanOrEqual(4);
    await page.close();
  });

  it('shows visitors nothing on a site the tenant did not allow, and tells the site owner in the console which origin to add', async () => {
    const shop = await createTenant(t, { plan: 'pro' });
    const shopKey = (await createKey(t, shop.id, { type: 'public', scopes: [] })).key;
    const shopBot = (await createBot(t, shop.id)).id;
    await t
      .http()
      .patch('/api/v1/settings')
      .set('X-API-Key', shop.key)
      .send({ allowedOrigins: ['https://shop.example.com'] })
      .expect(200);
    const page = await browser.newPage();
    const warnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    await page.goto(`${base}/widget/demo?botId=${shopBot}&key=${shopKey}`);
    // The demo page is on the service's own origin: its GET carries no Origin and passes; the
    // session (a POST, which does) is refused.
    await launcher(page).waitFor();
    const refused = page.waitForResponse((response) => response.url().endsWith('/api/v1/widget/sessions'));
    await launcher(page).click();
    expect((await refused).status()).toBe(403);
    await page.waitForTimeout(200);
    expect(await page.locator('[data-chatbot-widget]').count()).toBe(0);
    expect(await page.locator('css=.bubble').count()).toBe(0);
    expect(warnings).toEqual([expect.stringContaining(`add ${base} to the tenant's allowedOrigins`)]);
    await page.close();
  });

  it('shows nothing at all for an inactive bot', async () => {
    const sleeping = (await createBot(t, tenant.id, { isActive: false })).id;
    const page = await browser.newPage();
    // Listening before the page loads: the script's request may be answered before goto returns.
    const loaded = page.waitForResponse((response) => response.url().includes(`/api/v1/widget/bots/${sleeping}`));
    await page.goto(`${base}/widget/demo?botId=${sleeping}&key=${publicKey}`);
    expect((await loaded).status()).toBe(409);
    await page.waitForTimeout(200);
    expect(await page.locator('[data-chatbot-widget]').count()).toBe(0);
    await page.close();
  });
});
