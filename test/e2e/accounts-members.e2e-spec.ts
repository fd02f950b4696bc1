import { randomUUID } from 'node:crypto';
import { expectError, UUID } from '../support/assertions';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createKey, createTenant } from '../support/factories';
import { dashboardLinkIn, SmtpSink } from '../support/smtp-sink';
import { addMember, asUser, logIn, newEmail, ORIGIN, sessionCookieOf, signUp, TestUser } from '../support/users';

const invite = (t: TestApp, inviter: TestUser, body: Record<string, unknown>) =>
  asUser(t, inviter.cookie, inviter.tenantId).post('/api/v1/invitations').send(body);
const tokenOf = (acceptUrl: string) => new URL(acceptUrl).searchParams.get('token')!;
const accept = (t: TestApp, body: Record<string, unknown>, cookie?: string) => {
  const test = t.http().post('/auth/v1/invitations/accept').set('Origin', ORIGIN);
  return (cookie ? test.set('Cookie', cookie) : test).send(body);
};

describe('The tenant, its members and invitations', () => {
  let t: TestApp;
  let smtp: SmtpSink;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    t = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Chatbots <no-reply@dashboard.test>' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  describe('GET, PATCH /api/v1/tenant', () => {
    it('shows every member the tenant with its plan, limits and usage; owners and admins rename it', async () => {
      const owner = await signUp(t, { tenantName: 'Acme' });
      const viewer = await addMember(t, owner, 'viewer');
      const view = await asUser(t, viewer.cookie, owner.tenantId).get('/api/v1/tenant').expect(200);
      expect(view.body).toStrictEqual({
        tenant: {
          id: owner.tenantId,
          name: 'Acme',
          slug: expect.stringMatching(/^acme-[0-9a-f]{6}$/),
          plan: 'free',
          limits: { botsLimit: 1, messagesLimit: 500, requestsPerHour: 100, apiAccess: false, knowledgeCharactersLimit: 1_000_000 },
          usage: { messagesThisMonth: 0, botCount: 0, requestsThisHour: 0, knowledgeCharacters: 0 },
          createdAt: expect.any(String),
        },
      });
      expectError(await asUser(t, viewer.cookie, owner.tenantId).patch('/api/v1/tenant').send({ name: 'Hijacked' }), 403, 'INSUFFICIENT_ROLE');
      const admin = await addMember(t, owner, 'admin');
      const renamed = await asUser(t, admin.cookie, owner.tenantId).patch('/api/v1/tenant').send({ name: ' Acme Ltd ' }).expect(200);
      expect(renamed.body.tenant.name).toBe('Acme Ltd');
      // Memberships carry the new name at once.
      const me = await asUser(t, owner.cookie, null).get('/auth/v1/me').expect(200);
      expect(me.body.memberships[0].tenant.name).toBe('Acme Ltd');
    });

    it("counts the secret keys' requests of this hour against requestsPerHour, and none of the users'", async () => {
      const owner = await signUp(t, { tenantName: 'Counted' });
      await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
      const key = (await createKey(t, owner.tenantId)).key;
      const hour = () => Math.floor(Date.now() / 3_600_000);
      const started = hour();
      for (let i = 0; i < 3; i++) await t.http().get('/api/v1/bots').set('X-API-Key', key).expect(200);
      await asUser(t, owner.cookie, owner.tenantId).get('/api/v1/bots').expect(200);
      const { tenant } = (await asUser(t, owner.cookie, owner.tenantId).get('/api/v1/tenant').expect(200)).body;
      expect(tenant.limits).toMatchObject({ requestsPerHour: 1000, apiAccess: true });
      // Hours are aligned to the clock: across an hour's end the count starts again.
      if (hour() === started) expect(tenant.usage.requestsThisHour).toBe(3);
      else expect(tenant.usage.requestsThisHour).toBeLessThanOrEqual(3);
    });

    it('is for users only: a key gets 403 INSUFFICIENT_SCOPE, a wrong key 401', async () => {
      const tenant = await createTenant(t);
      expectError(await t.http().get('/api/v1/tenant').set('X-API-Key', tenant.key), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.http().get('/api/v1/members').set('X-API-Key', tenant.key), 403, 'INSUFFICIENT_SCOPE');
      expectError(await t.http().get('/api/v1/tenant').set('X-API-Key', 'svc_sk_nope'), 401, 'INVALID_API_KEY');
      expectError(await t.http().get('/api/v1/tenant'), 401, 'INVALID_SESSION');
    });
  });

  describe('invitations', () => {
    it('creates a single-use link shown once and mailed; accepting creates the user with the role, and a session', async () => {
      const owner = await signUp(t, { tenantName: 'Invites Inc' });
      const email = newEmail('invitee');
      const created = await invite(t, owner, { email, role: 'agent' }).expect(201);
      expect(created.body).toStrictEqual({
        invitation: {
          id: expect.stringMatching(UUID),
          email,
          role: 'agent',
          status: 'pending',
          invitedBy: `user:${owner.id}`,
          expiresAt: expect.any(String),
          createdAt: expect.any(String),
        },
        acceptUrl: expect.stringMatching(/^http:\/\/dashboard\.test\/dashboard\/invitations\/accept\?token=[A-Za-z0-9_-]{43}$/),
      });
      expect(Date.parse(created.body.invitation.expiresAt) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
      const mail = await smtp.mailTo(email);
      expect(mail.text).toContain('Invites Inc');
      expect(dashboardLinkIn(mail).toString()).toBe(created.body.acceptUrl);

      const listed = await asUser(t, owner.cookie, owner.tenantId).get('/api/v1/invitations').expect(200);
      expect(listed.body.invitations).toStrictEqual([created.body.invitation]);
      expect(JSON.stringify(listed.body)).not.toContain(tokenOf(created.body.acceptUrl));

      const accepted = await accept(t, { token: tokenOf(created.body.acceptUrl), name: 'Ivy', password: 'ivy password 1' }).expect(201);
      expect(accepted.body.user).toMatchObject({ email, name: 'Ivy' });
      expect(accepted.body.memberships).toEqual([
        { tenant: expect.objectContaining({ id: owner.tenantId }), role: 'agent', scopes: expect.any(Array), capabilities: [], assignableRoles: [] },
      ]);
      await asUser(t, sessionCookieOf(accepted), owner.tenantId).get('/api/v1/conversations').expect(200);

      // Single use.
      expectError(await accept(t, { token: tokenOf(created.body.acceptUrl), name: 'Ivy', password: 'ivy password 1' }), 410, 'INVITATION_EXPIRED');
      const after = await asUser(t, owner.cookie, owner.tenantId).get('/api/v1/invitations').expect(200);
      expect(after.body.invitations[0].status).toBe('accepted');
    });

    it('refuses withdrawn, expired, unknown and malformed tokens alike with 410', async () => {
      const owner = await signUp(t);
      const withdrawn = await invite(t, owner, { email: newEmail(), role: 'viewer' }).expect(201);
      await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/invitations/${withdrawn.body.invitation.id}`).expect(204);
      expectError(await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/invitations/${withdrawn.body.invitation.id}`), 404, 'NOT_FOUND');
      const expired = await invite(t, owner, { email: newEmail(), role: 'viewer' }).expect(201);
      await t.prisma.invitation.update({ where: { id: expired.body.invitation.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const body = { name: 'N', password: 'password 123' };
      expectError(await accept(t, { ...body, token: tokenOf(withdrawn.body.acceptUrl) }), 410, 'INVITATION_EXPIRED');
      expectError(await accept(t, { ...body, token: tokenOf(expired.body.acceptUrl) }), 410, 'INVITATION_EXPIRED');
      expectError(await accept(t, { ...body, token: 'A'.repeat(43) }), 410, 'INVITATION_EXPIRED');
      expectError(await accept(t, { ...body, token: 'short' }), 410, 'INVITATION_EXPIRED');
      expect(
        (await asUser(t, owner.cookie, owner.tenantId).get('/api/v1/invitations').expect(200)).body.invitations.map((i: { status: string }) => i.status),
      ).toEqual(['expired']);
    });

    it('adds the membership to a signed-in user with the invited e-mail; an existing e-mail without its session must sign in first', async () => {
      const owner = await signUp(t);
      const existing = await signUp(t);
      const created = await invite(t, owner, { email: existing.email.toUpperCase(), role: 'admin' }).expect(201);
      expectError(await accept(t, { token: tokenOf(created.body.acceptUrl), name: 'X', password: 'password 123' }), 409, 'EMAIL_TAKEN');
      const accepted = await accept(t, { token: tokenOf(created.body.acceptUrl) }, existing.cookie).expect(201);
      expect(accepted.body.memberships.map((m: { role: string }) => m.role).sort()).toEqual(['admin', 'owner']);
      // The existing session sees the new tenant at once.
      await asUser(t, existing.cookie, owner.tenantId).get('/api/v1/members').expect(200);
    });

    it('needs a name and password to create an account, naming both', async () => {
      const owner = await signUp(t);
      const created = await invite(t, owner, { email: newEmail(), role: 'viewer' }).expect(201);
      expectError(await accept(t, { token: tokenOf(created.body.acceptUrl) }), 400, 'VALIDATION_ERROR', [
        { field: 'name', message: 'is required to create your account' },
        { field: 'password', message: 'is required to create your account' },
      ]);
      // Still usable afterwards.
      await accept(t, { token: tokenOf(created.body.acceptUrl), name: 'Late', password: 'password 123' }).expect(201);
    });

    it('lets only owners invite owners, refuses members inviting, and refuses inviting a member again', async () => {
      const owner = await signUp(t);
      const admin = await addMember(t, owner, 'admin');
      const agent = await addMember(t, owner, 'agent');
      expectError(await invite(t, admin, { email: newEmail(), role: 'owner' }), 403, 'INSUFFICIENT_ROLE');
      await invite(t, admin, { email: newEmail(), role: 'admin' }).expect(201);
      expectError(await invite(t, agent, { email: newEmail(), role: 'viewer' }), 403, 'INSUFFICIENT_ROLE');
      expectError(await invite(t, owner, { email: agent.email, role: 'viewer' }), 409, 'CONFLICT');
      expectError(await invite(t, owner, { email: 'nope', role: 'boss' }), 400, 'VALIDATION_ERROR', [
        { field: 'email', message: 'must be an e-mail address' },
        { field: 'role', message: 'must be one of owner, admin, agent, viewer' },
      ]);
    });
  });

  describe('members', () => {
    it('lists the members; owners change roles; admins manage non-owners only; the change applies at once', async () => {
      const owner = await signUp(t);
      const admin = await addMember(t, owner, 'admin');
      const viewer = await addMember(t, owner, 'viewer');
      const list = await asUser(t, viewer.cookie, owner.tenantId).get('/api/v1/members').expect(200);
      expect(list.body.members.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
        [owner.id, 'owner'],
        [admin.id, 'admin'],
        [viewer.id, 'viewer'],
      ]);
      expect(list.body.members[0]).toStrictEqual({ userId: owner.id, email: owner.email, name: 'Test User', role: 'owner', createdAt: expect.any(String) });

      expectError(await asUser(t, viewer.cookie, owner.tenantId).patch(`/api/v1/members/${admin.id}`).send({ role: 'viewer' }), 403, 'INSUFFICIENT_ROLE');
      expectError(await asUser(t, admin.cookie, owner.tenantId).patch(`/api/v1/members/${owner.id}`).send({ role: 'viewer' }), 403, 'INSUFFICIENT_ROLE');
      expectError(await asUser(t, admin.cookie, owner.tenantId).patch(`/api/v1/members/${viewer.id}`).send({ role: 'owner' }), 403, 'INSUFFICIENT_ROLE');
      // The viewer cannot write leads; made an agent, it can, on its very next request.
      expectError(await asUser(t, viewer.cookie, owner.tenantId).post('/api/v1/leads').send({ name: 'L', email: 'l@example.com' }), 403, 'INSUFFICIENT_ROLE');
      const changed = await asUser(t, admin.cookie, owner.tenantId).patch(`/api/v1/members/${viewer.id}`).send({ role: 'agent' }).expect(200);
      expect(changed.body.member).toMatchObject({ userId: viewer.id, role: 'agent' });
      await asUser(t, viewer.cookie, owner.tenantId).post('/api/v1/leads').send({ name: 'L', email: 'l@example.com' }).expect(201);
      expectError(await asUser(t, owner.cookie, owner.tenantId).patch(`/api/v1/members/${randomUUID()}`).send({ role: 'viewer' }), 404, 'NOT_FOUND');
      expectError(await asUser(t, owner.cookie, owner.tenantId).patch('/api/v1/members/nope').send({ role: 'viewer' }), 404, 'NOT_FOUND');
    });

    it('protects the last owner from demotion and removal, lets anyone leave, and cuts a removed member off at once', async () => {
      const owner = await signUp(t);
      const agent = await addMember(t, owner, 'agent');
      expectError(await asUser(t, owner.cookie, owner.tenantId).patch(`/api/v1/members/${owner.id}`).send({ role: 'admin' }), 409, 'LAST_OWNER');
      expectError(await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/members/${owner.id}`), 409, 'LAST_OWNER');
      expectError(await asUser(t, agent.cookie, owner.tenantId).delete(`/api/v1/members/${owner.id}`), 403, 'INSUFFICIENT_ROLE');
      // A second owner: now either may step down.
      const second = await addMember(t, owner, 'owner');
      await asUser(t, second.cookie, owner.tenantId).patch(`/api/v1/members/${owner.id}`).send({ role: 'admin' }).expect(200);
      expectError(await asUser(t, second.cookie, owner.tenantId).delete(`/api/v1/members/${second.id}`), 409, 'LAST_OWNER');
      // Leaving.
      await asUser(t, agent.cookie, owner.tenantId).delete(`/api/v1/members/${agent.id}`).expect(204);
      expectError(await asUser(t, agent.cookie, owner.tenantId).get('/api/v1/bots'), 403, 'NOT_A_MEMBER');
      // Removed by an admin.
      const viewer = await addMember(t, second, 'viewer');
      await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/members/${viewer.id}`).expect(204);
      expectError(await asUser(t, viewer.cookie, owner.tenantId).get('/api/v1/bots'), 403, 'NOT_A_MEMBER');
    });

    it("deletes the pending invitations of a member who is removed or demoted: a removed admin's invitation no longer lets anyone in", async () => {
      const owner = await signUp(t);
      const admin = await addMember(t, owner, 'admin');
      const sent = await invite(t, admin, { email: newEmail('comeback'), role: 'admin' }).expect(201);
      const kept = await invite(t, owner, { email: newEmail('kept'), role: 'viewer' }).expect(201);
      await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/members/${admin.id}`).expect(204);
      const body = { name: 'Back Again', password: 'back again password 1' };
      expectError(await accept(t, { ...body, token: tokenOf(sent.body.acceptUrl) }), 410, 'INVITATION_EXPIRED');
      expect(await t.prisma.membership.count({ where: { tenantId: owner.tenantId, role: 'admin' } })).toBe(0);

      // Demoted: an admin made agent loses theirs too; the owner's invitation stands.
      const demoted = await addMember(t, owner, 'admin');
      const sentBefore = await invite(t, demoted, { email: newEmail('demoted'), role: 'admin' }).expect(201);
      await asUser(t, owner.cookie, owner.tenantId).patch(`/api/v1/members/${demoted.id}`).send({ role: 'agent' }).expect(200);
      expectError(await accept(t, { ...body, token: tokenOf(sentBefore.body.acceptUrl) }), 410, 'INVITATION_EXPIRED');
      await accept(t, { ...body, token: tokenOf(kept.body.acceptUrl) }).expect(201);

      const deletions = await t.prisma.auditEvent.findMany({
        where: { tenantId: owner.tenantId, action: 'invitation.deleted' },
        orderBy: { createdAt: 'asc' },
      });
      expect(deletions.map((row) => [row.targetId, row.actor])).toEqual([
        [sent.body.invitation.id, `user:${owner.id}`],
        [sentBefore.body.invitation.id, `user:${owner.id}`],
      ]);
    });

    it('names who created each API key, and ?revokeKeys=true deletes the keys the removed member created, each audited', async () => {
      const owner = await signUp(t);
      await t.admin().patch(`/admin/v1/tenants/${owner.tenantId}`).send({ plan: 'pro' }).expect(200);
      const admin = await addMember(t, owner, 'admin');
      const other = await addMember(t, owner, 'admin');
      const createKey = async (user: TestUser, name: string) =>
        (
          await asUser(t, user.cookie, owner.tenantId)
            .post('/api/v1/api-keys')
            .send({ name, scopes: ['bots:read'] })
            .expect(201)
        ).body as {
          apiKey: { id: string; createdBy: unknown };
          key: string;
        };
      const [first, second, owners, others] = [
        await createKey(admin, 'Admin widget 1'),
        await createKey(admin, 'Admin widget 2'),
        await createKey(owner, 'Owner widget'),
        await createKey(other, 'Other widget'),
      ];
      expect(first.apiKey.createdBy).toEqual({ type: 'user', userId: admin.id, name: 'A admin' });
      expect(owners.apiKey.createdBy).toEqual({ type: 'user', userId: owner.id, name: 'Test User' });
      const listed = (await asUser(t, owner.cookie, owner.tenantId).get('/api/v1/api-keys').expect(200)).body.apiKeys as { id: string; createdBy: unknown }[];
      expect(listed.find((key) => key.id === second.apiKey.id)?.createdBy).toEqual({ type: 'user', userId: admin.id, name: 'A admin' });
      const verify = (key: string) => t.http().get('/api/v1/bots').set('X-API-Key', key);
      await verify(first.key).expect(200);

      expectError(await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/members/${admin.id}?revokeKeys=maybe`), 400, 'VALIDATION_ERROR', [
        { field: 'revokeKeys', message: 'must be true or false' },
      ]);
      await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/members/${admin.id}?revokeKeys=true`).expect(204);
      expectError(await verify(first.key), 401, 'INVALID_API_KEY');
      expectError(await verify(second.key), 401, 'INVALID_API_KEY');
      await verify(owners.key).expect(200);
      const revoked = await t.prisma.auditEvent.findMany({ where: { tenantId: owner.tenantId, action: 'api_key.deleted' } });
      expect(revoked.map((row) => row.targetId).sort()).toEqual([first.apiKey.id, second.apiKey.id].sort());
      expect(revoked.every((row) => row.actor === `user:${owner.id}`)).toBe(true);

      // Without it, a removed member's keys stay (the owner decides).
      await asUser(t, owner.cookie, owner.tenantId).delete(`/api/v1/members/${other.id}`).expect(204);
      await verify(others.key).expect(200);
    });

    it('demoting each other at once leaves one owner at least', async () => {
      const a = await signUp(t);
      const b = await addMember(t, a, 'owner');
      const [first, second] = await Promise.all([
        asUser(t, a.cookie, a.tenantId).patch(`/api/v1/members/${b.id}`).send({ role: 'viewer' }),
        asUser(t, b.cookie, a.tenantId).patch(`/api/v1/members/${a.id}`).send({ role: 'viewer' }),
      ]);
      // One wins; the other is refused: the last owner (409), or no longer an owner to demote anyone (403).
      const statuses = [first.status, second.status].sort((x, y) => x - y);
      expect([
        [200, 403],
        [200, 409],
      ]).toContainEqual(statuses);
      expect(await t.prisma.membership.count({ where: { tenantId: a.tenantId, role: 'owner' } })).toBe(1);
    });

    it('audits member and invitation changes with the user as actor, the request id and the client address', async () => {
      const owner = await signUp(t);
      const agent = await addMember(t, owner, 'agent');
      await asUser(t, owner.cookie, owner.tenantId)
        .patch(`/api/v1/members/${agent.id}`)
        .set('X-Request-Id', 'req-role-change')
        .send({ role: 'viewer' })
        .expect(200);
      const rows = await t.prisma.auditEvent.findMany({ where: { tenantId: owner.tenantId }, orderBy: { createdAt: 'asc' } });
      expect(rows.map((row) => row.action)).toEqual(['tenant.created', 'member.added', 'invitation.created', 'member.added', 'member.role_changed']);
      expect(rows.at(-1)).toMatchObject({
        actor: `user:${owner.id}`,
        requestId: 'req-role-change',
        ip: expect.stringMatching(/127\.0\.0\.1/),
        targetId: agent.id,
        data: { from: 'agent', to: 'viewer' },
      });
      expect(rows[3]).toMatchObject({ actor: `user:${agent.id}`, action: 'member.added' });
    });
  });

  describe('password resets', () => {
    it('mails a single-use link; using it sets the password and ends every session', async () => {
      const user = await signUp(t);
      await t.http().post('/auth/v1/password-resets').set('Origin', ORIGIN).send({ email: user.email.toUpperCase() }).expect(202);
      // An unknown e-mail gets the same answer, and no mail.
      const unknown = newEmail('nobody');
      await t.http().post('/auth/v1/password-resets').set('Origin', ORIGIN).send({ email: unknown }).expect(202);
      const link = dashboardLinkIn(await smtp.mailTo(user.email));
      expect(link.pathname).toBe('/dashboard/password-reset');
      const token = link.searchParams.get('token');
      await t.http().post('/auth/v1/password-resets/confirm').set('Origin', ORIGIN).send({ token, password: 'reset password 1' }).expect(204);
      expectError(await asUser(t, user.cookie, null).get('/auth/v1/me'), 401, 'INVALID_SESSION');
      await logIn(t, user.email, 'reset password 1');
      expectError(
        await t.http().post('/auth/v1/password-resets/confirm').set('Origin', ORIGIN).send({ token, password: 'another password 2' }),
        400,
        'VALIDATION_ERROR',
        [{ field: 'token', message: expect.stringContaining('not a valid reset token') }],
      );
      expect(smtp.mails.some((mail) => mail.to.includes(unknown))).toBe(false);
    });

    it('refuses a token past its hour', async () => {
      const user = await signUp(t);
      const { body } = await t.admin().post(`/admin/v1/users/${user.id}/password-resets`).expect(201);
      await t.prisma.passwordReset.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const token = new URL(body.resetUrl).searchParams.get('token');
      expectError(
        await t.http().post('/auth/v1/password-resets/confirm').set('Origin', ORIGIN).send({ token, password: 'late password 1' }),
        400,
        'VALIDATION_ERROR',
        [{ field: 'token', message: expect.stringContaining('not a valid reset token') }],
      );
    });

    it('the admin API returns a reset link for platforms without mail (404 for an unknown user)', async () => {
      const user = await signUp(t);
      const { body } = await t.admin().post(`/admin/v1/users/${user.id}/password-resets`).expect(201);
      expect(body).toStrictEqual({ resetUrl: expect.stringMatching(/^http:\/\/dashboard\.test\/dashboard\/password-reset\?token=[A-Za-z0-9_-]{43}$/) });
      await t
        .http()
        .post('/auth/v1/password-resets/confirm')
        .set('Origin', ORIGIN)
        .send({ token: new URL(body.resetUrl).searchParams.get('token'), password: 'admin reset 1' })
        .expect(204);
      await logIn(t, user.email, 'admin reset 1');
      expectError(await t.admin().post(`/admin/v1/users/${randomUUID()}/password-resets`), 404, 'NOT_FOUND');
      expectError(await t.admin().post('/admin/v1/users/nope/password-resets'), 404, 'NOT_FOUND');
      expectError(await t.http().post(`/admin/v1/users/${user.id}/password-resets`), 401, 'UNAUTHORIZED');
    });
  });
});
