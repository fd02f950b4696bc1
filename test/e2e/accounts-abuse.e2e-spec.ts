import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { expectError } from '../support/assertions';
import { sleep } from '../support/child-server';
import { createTestApp, TestApp } from '../support/create-test-app';
import { dashboardLinkIn, ReceivedMail, SmtpSink } from '../support/smtp-sink';
import { asUser, logIn, newEmail, ORIGIN, signUp, TestUser } from '../support/users';

const PASSWORD = 'correct horse battery';

/**
 * A fresh IPv6 /64 of the documentation range per call: the suite runs with the production limits,
 * whose counters may outlive a run in a shared Redis, so no two runs count under one address.
 */
const randomNet = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
const randomAddress = () => `${randomNet()}::1`;
const minuteOf = (ms: number) => Math.floor(ms / 60_000);

/**
 * Waits (at most 20 s) until at least 20 s of the clock's minute are left: the per-minute windows
 * are aligned to it, and a flood that crosses a minute's end may pass 10 in each.
 */
async function earlyInAMinute(): Promise<void> {
  while (Date.now() % 60_000 > 40_000) await sleep(200);
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Not within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

/** A mail's Subject header (unfolded) and its body as text (quoted-printable bytes read as UTF-8). */
function partsOf(mail: ReceivedMail): { subject: string; body: string } {
  const text = Buffer.from(mail.text, 'latin1').toString('utf8');
  const split = text.search(/\r?\n\r?\n/);
  const headers = text.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  return { subject: /^Subject: (.*)$/im.exec(headers)![1], body: text.slice(split) };
}

const expectPasswordRefused = (response: Response) =>
  expectError(response, 400, 'VALIDATION_ERROR', [{ field: 'password', message: expect.stringMatching(/most common passwords|your e-mail address/) }]);

describe('Abuse limits of the accounts (sign-up, resets, invitations)', () => {
  let t: TestApp;
  let smtp: SmtpSink;

  const from = (ip: string) => ({
    signUp: (body: Record<string, unknown>) => t.http().post('/auth/v1/signup').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send(body),
    logIn: (email: string, password: string) => t.http().post('/auth/v1/sessions').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ email, password }),
    requestReset: (email: string) => t.http().post('/auth/v1/password-resets').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ email }),
    confirm: (token: string, password: string) =>
      t.http().post('/auth/v1/password-resets/confirm').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send({ token, password }),
    accept: (body: Record<string, unknown>) => t.http().post('/auth/v1/invitations/accept').set('Origin', ORIGIN).set('X-Forwarded-For', ip).send(body),
  });
  const newAccount = (label = 'user') => ({ email: newEmail(label), password: PASSWORD, name: 'N', tenantName: 'T' });
  const invite = (owner: TestUser, email: string) => asUser(t, owner.cookie, owner.tenantId).post('/api/v1/invitations').send({ email, role: 'agent' });
  const adminResetToken = async (userId: string) =>
    new URL((await t.admin().post(`/admin/v1/users/${userId}/password-resets`).expect(201)).body.resetUrl).searchParams.get('token')!;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    // The production limits (the defaults), not the test apps' unreachable ones.
    t = await createTestApp({
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      REDIS_URL: process.env.REDIS_URL,
      SIGNUP_RATE_LIMIT: undefined,
      NEW_PASSWORD_RATE_LIMIT: undefined,
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("answers a sign-up and reset flood from one address with 429 past 10 a minute, hashing only what passes; another address's log-ins all pass meanwhile", async () => {
    const flooder = randomAddress();
    const bystander = randomAddress();
    const user = await signUp(t, {}, randomAddress());
    await earlyInAMinute();
    const started = Date.now();
    const flood = Promise.all([
      ...Array.from({ length: 40 }, () => from(flooder).signUp(newAccount('flood'))),
      // Well-formed tokens never issued: before the fix each one cost a hash.
      ...Array.from({ length: 160 }, () => from(flooder).confirm(randomBytes(32).toString('base64url'), PASSWORD)),
    ]);
    const logIns: number[] = [];
    for (let i = 0; i < 10; i++) logIns.push((await from(bystander).logIn(user.email, PASSWORD)).status);
    const answers = await flood;
    const windows = minuteOf(Date.now()) - minuteOf(started) + 1;

    expect(logIns).toEqual(Array(10).fill(201));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => ![201, 400, 429].includes(status))).toEqual([]);
    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(10 * windows);
    // Of the sign-ups let through the minute's limit, at most 5 a day.
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(5);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(200 - 10 * windows);
    for (const answer of refused) {
      expectError(answer, 429, 'RATE_LIMIT_EXCEEDED');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('refuses the 6th sign-up from one IPv6 /64 in a day with 429; another /64 still signs up', async () => {
    const net = randomNet();
    for (let host = 1; host <= 5; host++) await from(`${net}::${host}`).signUp(newAccount()).expect(201);
    const refused = await from(`${net}::abcd`).signUp(newAccount());
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await from(randomAddress()).signUp(newAccount()).expect(201);
  });

  it('sends at most 3 reset mails a user an hour: the 4th request is still 202, with no mail and no token', async () => {
    const ip = randomAddress();
    const user = await signUp(t, {}, ip);
    const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.to.includes(email));
    for (let i = 0; i < 4; i++) await from(ip).requestReset(user.email).expect(202);
    await until(() => mailsTo(user.email).length >= 3, 10_000, 'three reset mails');
    expect(await t.prisma.passwordReset.count({ where: { userId: user.id } })).toBe(3);
    // Another user's mail, asked for after the 4th: once it is in, a 4th mail would have been too.
    const marker = await signUp(t, {}, ip);
    await from(ip).requestReset(marker.email).expect(202);
    await smtp.mailTo(marker.email, 10_000);
    expect(mailsTo(user.email)).toHaveLength(3);
  });

  it('limits invitations to 20 a day on Free (429), 200 on the other plans', async () => {
    const owner = await signUp(t, {}, randomAddress());
    for (let i = 0; i < 20; i++) await invite(owner, newEmail('invitee')).expect(201);
    const refused = await invite(owner, newEmail('invitee'));
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
    // The session learns the new plan within a second (the session cache).
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (status !== 201 && Date.now() < deadline) status = (await invite(owner, newEmail('invitee'))).status;
    expect(status).toBe(201);
  });

  it("keeps the tenant's name out of the invitation mail's subject, and quotes it in the body as the tenant's own words", async () => {
    const name = 'Acme Security: your account is locked, verify it now';
    const owner = await signUp(t, { tenantName: name }, randomAddress());
    const email = newEmail('phished');
    const created = await invite(owner, email).expect(201);
    const mail = await smtp.mailTo(email);
    const { subject, body } = partsOf(mail);
    expect(subject).toBe('You are invited to join a team');
    expect(subject).not.toContain('Acme');
    expect(body).toContain(`The team calls itself «${name}» (a name its owner chose, not ours).`);
    expect(dashboardLinkIn(mail).toString()).toBe(created.body.acceptUrl);
  });

  it('ends every outstanding reset token of the user when a reset completes, and when the password changes', async () => {
    const ip = randomAddress();
    const user = await signUp(t, {}, ip);
    const unusable = [{ field: 'token', message: expect.stringContaining('not a valid reset token') }];
    const older = await adminResetToken(user.id);
    const newer = await adminResetToken(user.id);
    await from(ip).confirm(newer, 'a fresh passphrase 1').expect(204);
    expectError(await from(ip).confirm(older, 'another passphrase 2'), 400, 'VALIDATION_ERROR', unusable);

    const cookie = await logIn(t, user.email, 'a fresh passphrase 1');
    const outstanding = await adminResetToken(user.id);
    await asUser(t, cookie, null).patch('/auth/v1/me').send({ password: 'a changed passphrase 3', currentPassword: 'a fresh passphrase 1' }).expect(200);
    expectError(await from(ip).confirm(outstanding, 'another passphrase 4'), 400, 'VALIDATION_ERROR', unusable);
    await logIn(t, user.email, 'a changed passphrase 3');
  });

  it("refuses common passwords and passwords holding the e-mail's local part wherever a password is set (400 on password)", async () => {
    // Each step from its own address, so that none of them meets the per-minute limit.
    const alice = `alice@${randomUUID().slice(0, 8)}.example.test`;
    expectPasswordRefused(await from(randomAddress()).signUp({ ...newAccount(), password: 'password12' }));
    expectPasswordRefused(await from(randomAddress()).signUp({ ...newAccount(), email: alice, password: 'alice-secret-pw' }));
    expectPasswordRefused(await from(randomAddress()).signUp({ ...newAccount(), email: alice, password: 'My ALICE secret!' }));
    const user = await signUp(t, { email: alice }, randomAddress());

    // Reset: refused, and the link still works afterwards (nothing was claimed).
    const token = await adminResetToken(user.id);
    expectPasswordRefused(await from(randomAddress()).confirm(token, 'PassWord12'));
    expectPasswordRefused(await from(randomAddress()).confirm(token, 'alice-secret-pw'));
    await from(randomAddress()).confirm(token, 'a fine passphrase 1').expect(204);

    // A password change.
    const cookie = await logIn(t, alice, 'a fine passphrase 1');
    expectPasswordRefused(await asUser(t, cookie, null).patch('/auth/v1/me').send({ password: 'password12', currentPassword: 'a fine passphrase 1' }));
    expectPasswordRefused(await asUser(t, cookie, null).patch('/auth/v1/me').send({ password: 'alice-secret-pw', currentPassword: 'a fine passphrase 1' }));

    // An invitation accepted by a new user: refused, and the invitation still works afterwards.
    const invitee = `bob.smith@${randomUUID().slice(0, 8)}.example.test`;
    const acceptUrl = (await invite({ ...user, cookie }, invitee).expect(201)).body.acceptUrl;
    const invitation = new URL(acceptUrl).searchParams.get('token');
    expectPasswordRefused(await from(randomAddress()).accept({ token: invitation, name: 'Bob', password: 'password12' }));
    expectPasswordRefused(await from(randomAddress()).accept({ token: invitation, name: 'Bob', password: 'BOB.SMITH rules' }));
    await from(randomAddress()).accept({ token: invitation, name: 'Bob', password: 'a fine passphrase 2' }).expect(201);
  });
});
