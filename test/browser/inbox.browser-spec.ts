import type { Browser } from 'playwright-core';
import { createTestApp, TestApp } from '../support/create-test-app';
import { expectAccessible, launchChromium, listenOnLoopback, openPage } from '../support/dashboard-browser';
import { createBot, createKey } from '../support/factories';
import { newEmail } from '../support/users';

const PASSWORD = 'correct horse battery';

/**
 * The inbox: a visitor hands their conversation to a person through the widget's API; the owner
 * finds it first, takes it, sees the visitor's next message arrive live, answers, releases it to
 * the bot and ends it; the API confirms each step.
 */
describe('The inbox in headless Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    // No PUBLIC_URL: the service's own origin is the browser's (http://127.0.0.1:<port>).
    t = await createTestApp({ PUBLIC_URL: undefined });
    base = await listenOnLoopback(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('shows the waiting conversation first, updates its transcript live, and answers, assigns, releases and ends it', async () => {
    // The owner's tenant (on Pro, for keys), a bot that hands off, and the widget's public key.
    const email = newEmail('inbox-owner');
    const signup = await t
      .http()
      .post('/auth/v1/signup')
      .set('Origin', base)
      .send({ email, password: PASSWORD, name: 'Olivia Owner', tenantName: 'Inbox Co' })
      .expect(201);
    const ownerId = signup.body.user.id as string;
    const tenantId = signup.body.memberships[0].tenant.id as string;
    await t.admin().patch(`/admin/v1/tenants/${tenantId}`).send({ plan: 'pro' }).expect(200);
    const secret = (await createKey(t, tenantId)).key;
    const publicKey = (await createKey(t, tenantId, { type: 'public', scopes: [] })).key;
    const botId = (await createBot(t, tenantId)).id;
    await t
      .http()
      .patch(`/api/v1/bots/${botId}/settings`)
      .set('X-API-Key', secret)
      .send({ handoff: { enabled: true } })
      .expect(200);
    const apiGet = async (path: string) => (await t.http().get(path).set('X-API-Key', secret).expect(200)).body;

    const token = (await t.http().post('/api/v1/widget/sessions').set('X-API-Key', publicKey).send({ botId }).expect(201)).body.visitorToken as string;
    const widget = { 'X-API-Key': publicKey, 'X-Visitor-Token': token };
    const startConversation = async () => (await t.http().post('/api/v1/widget/conversations').set(widget).send({}).expect(201)).body.conversation.id as string;
    const visitorSays = (id: string, content: string) => t.http().post(`/api/v1/widget/conversations/${id}/messages`).set(widget).send({ content }).expect(201);

    // The visitor asks for a person; a newer conversation, handed off without anyone waiting, must come after it.
    const waiting = await startConversation();
    await visitorSays(waiting, 'Hello bot');
    await t.http().post(`/api/v1/widget/conversations/${waiting}/handoff`).set(widget).send({}).expect(200);
    const quiet = await startConversation();
    await t.http().post(`/api/v1/conversations/${quiet}/handoff`).set('X-API-Key', secret).send({}).expect(200);

    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const { page, problems } = await openPage(browser, context);

    await page.goto(`${base}/dashboard`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    await page.getByRole('navigation').getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    const items = page.locator('.inbox-list a');
    await items.nth(1).waitFor();
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).getAttribute('href')).toBe(`/dashboard/inbox/${waiting}`);
    expect(await items.nth(0).textContent()).toMatch(/^Waiting since .* · unassigned · \d+ messages$/);
    expect(await items.nth(1).getAttribute('href')).toBe(`/dashboard/inbox/${quiet}`);
    await expectAccessible(page);

    await items.nth(0).click();
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText('Hello bot').waitFor();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByText('Assigned to you', { exact: true }).waitFor();
    expect((await apiGet(`/api/v1/conversations/${waiting}`)).conversation.assigneeId).toBe(ownerId);

    // The visitor writes again: it appears without a reload.
    await visitorSays(waiting, 'Are you still there?');
    await transcript.getByText('Are you still there?').waitFor();

    // Another visitor asks for a person: the list shows it within its 10 s refresh, without a click.
    const newcomer = await startConversation();
    await t.http().post(`/api/v1/conversations/${newcomer}/handoff`).set('X-API-Key', secret).send({}).expect(200);
    await page.locator(`.inbox-list a[href="/dashboard/inbox/${newcomer}"]`).waitFor({ timeout: 15_000 });

    // An empty reply: the API's error shows next to the field.
    await page.getByRole('button', { name: 'Send reply' }).click();
    const reply = page.getByLabel('Reply to the visitor');
    await page.locator('textarea[name=content][aria-invalid=true]').waitFor();
    const describedBy = (await reply.getAttribute('aria-describedby'))!.split(' ').pop()!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toMatch(/^Error: /);
    expect(problems).toEqual([expect.stringMatching(/^400: .*\/messages$/), expect.stringContaining('400 (Bad Request)')]);
    problems.length = 0;

    // The reply, sent from the keyboard (Ctrl+Enter), is stored as an agent message.
    await reply.fill('Yes, Olivia here. How can I help?');
    await reply.press('Control+Enter');
    await transcript.getByText('Yes, Olivia here. How can I help?').waitFor();
    expect(await reply.inputValue()).toBe('');
    const stored = (await apiGet(`/api/v1/conversations/${waiting}/messages`)).messages;
    expect(stored.at(-1)).toMatchObject({ role: 'agent', authorName: 'Olivia Owner', content: 'Yes, Olivia here. How can I help?' });
    expect(stored.filter((message: { content: string }) => message.content === 'Yes, Olivia here. How can I help?')).toHaveLength(1);

    // Readable on a phone: nothing wider than 375 px.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Release to the bot' }).click();
    await page.getByText('Status: with the bot').waitFor();
    expect((await apiGet(`/api/v1/conversations/${waiting}`)).conversation).toMatchObject({ status: 'active', assigneeId: null });
    await page.getByRole('button', { name: 'End conversation' }).click();
    await page.getByText('This conversation has ended.').waitFor();
    expect((await apiGet(`/api/v1/conversations/${waiting}`)).conversation.status).toBe('ended');
    await expectAccessible(page);

    expect(problems).toEqual([]);
    await context.close();
  });
});
