import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from './create-test-app';
import { sessionCookieOf } from './users';

/** Debian's chromium (.ci/run installs it); the dashboard is built by `npm run build` (pretest). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });

/** Listens on 127.0.0.1 (`port`, or a free one) and answers the base URL the browser uses. */
export async function listenOnLoopback(t: TestApp, port = 0): Promise<string> {
  const server = t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A free port on 127.0.0.1 and the origin a browser reaches it at, for a test whose pages follow
 * mailed or returned links: those are built from PUBLIC_URL only (never from the request), so the
 * app is made with this origin as PUBLIC_URL and then listens on the port (listenOnLoopback).
 */
export async function freeLoopbackOrigin(): Promise<{ port: number; origin: string }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return { port, origin: `http://127.0.0.1:${port}` };
}

/**
 * axe-core on the page as it is now: no serious or critical violation. Injected through the
 * DevTools protocol (page.evaluate), which the page's CSP does not govern: the page itself keeps
 * its strict policy.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  )) as string[];
  expect(violations).toEqual([]);
}

/** A page that records console errors and failed requests (a 4xx/5xx answer or no answer). */
export async function openPage(
  browser: Browser,
  context?: BrowserContext,
  viewport = { width: 1100, height: 900 },
): Promise<{ page: Page; problems: string[] }> {
  const page = await (context ?? (await browser.newContext({ viewport }))).newPage();
  page.setDefaultTimeout(15000);
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // A request the browser itself cancelled (net::ERR_ABORTED: a lazy chunk's preload superseded by
  // its import under load) is no failure of the service; the page's content is checked apart.
  page.on(
    'requestfailed',
    (request) => request.failure()?.errorText !== 'net::ERR_ABORTED' && problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`),
  );
  page.on('response', (response) => response.status() >= 400 && problems.push(`${response.status()}: ${response.url()}`));
  return { page, problems };
}

/** Waits for the page's level-1 heading. */
export const heading = (page: Page, text: string) => page.getByRole('heading', { level: 1, name: text }).waitFor();

/** Nothing wider than the viewport: the page reads without sideways scrolling (tables scroll in their own box). */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = (await page.evaluate('({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })')) as {
    scrollWidth: number;
    innerWidth: number;
  };
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/**
 * The dashboard at `path` as a signed-in member, without the sign-in form: their session cookie and
 * the tenant chosen, in a new context (a page that records problems, as openPage).
 */
export async function openSignedIn(
  browser: Browser,
  base: string,
  member: { cookie: string; tenantId: string },
  path: string,
  viewport = { width: 1100, height: 900 },
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport,
    storageState: {
      cookies: [],
      origins: [
        {
          origin: base,
          localStorage: [
            { name: 'dashboard.signedIn', value: '1' },
            { name: 'dashboard.tenantId', value: member.tenantId },
          ],
        },
      ],
    },
  });
  const [name, value] = member.cookie.split('=');
  await context.addCookies([{ name, value, url: base }]);
  const opened = await openPage(browser, context);
  await opened.page.goto(`${base}/dashboard${path}`);
  return opened;
}

/**
 * A new tenant's owner and an agent they invited, both signed in through the API from `base` (the
 * app's PUBLIC_URL, which the CSRF check compares Origin with): their session cookies.
 */
export async function ownerAndAgent(t: TestApp, base: string, label: string): Promise<{ tenantId: string; ownerCookie: string; agentCookie: string }> {
  const owner = await t
    .http()
    .post('/auth/v1/signup')
    .set('Origin', base)
    .send({ email: `${label}-owner-${Date.now()}@example.test`, password: 'correct horse battery', name: 'Olivia Owner', tenantName: `${label} Inc` })
    .expect(201);
  const ownerCookie = sessionCookieOf(owner);
  const tenantId = owner.body.memberships[0].tenant.id as string;
  const invited = await t
    .http()
    .post('/api/v1/invitations')
    .set('Origin', base)
    .set('Cookie', ownerCookie)
    .set('X-Tenant-Id', tenantId)
    .send({ email: `${label}-agent-${Date.now()}@example.test`, role: 'agent' })
    .expect(201);
  const accepted = await t
    .http()
    .post('/auth/v1/invitations/accept')
    .set('Origin', base)
    .send({ token: new URL(invited.body.acceptUrl).searchParams.get('token'), name: 'Alex Agent', password: 'agent password 123' })
    .expect(201);
  return { tenantId, ownerCookie, agentCookie: sessionCookieOf(accepted) };
}
