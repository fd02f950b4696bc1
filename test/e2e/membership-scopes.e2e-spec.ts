import { ALL_SCOPES } from '../../src/common/access/scopes';
import { createTestApp, TestApp } from '../support/create-test-app';
import { addMember, asUser, signUp, TestUser } from '../support/users';

/** The roles table of API_DECISIONS part 3, written out: what the dashboard shows each role. */
const EXPECTED = {
  owner: { scopes: [...ALL_SCOPES], capabilities: ['tenant:manage', 'owners:manage'], assignableRoles: ['owner', 'admin', 'agent', 'viewer'] },
  admin: { scopes: [...ALL_SCOPES], capabilities: ['tenant:manage'], assignableRoles: ['admin', 'agent', 'viewer'] },
  agent: {
    scopes: ['bots:read', 'conversations:read', 'conversations:write', 'leads:read', 'leads:write', 'analytics:read', 'settings:read'],
    capabilities: [],
    assignableRoles: [],
  },
  viewer: {
    scopes: ['bots:read', 'conversations:read', 'leads:read', 'analytics:read', 'settings:read'],
    capabilities: [],
    assignableRoles: [],
  },
} as const;

describe("A membership carries what its role may do (GET /auth/v1/me: the dashboard's permissions)", () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await signUp(t, { tenantName: 'Scopes Inc' });
  });
  afterAll(() => t.close());

  it.each(['owner', 'admin', 'agent', 'viewer'] as const)("gives a %s the role's scopes, capabilities and assignable roles", async (role) => {
    const member = role === 'owner' ? owner : await addMember(t, owner, role);
    const me = await asUser(t, member.cookie, null).get('/auth/v1/me').expect(200);
    expect(me.body.memberships).toStrictEqual([
      { tenant: { id: owner.tenantId, name: 'Scopes Inc', slug: expect.any(String), plan: 'free' }, role, ...EXPECTED[role] },
    ]);
  });

  it('follows a change of role at once', async () => {
    const member = await addMember(t, owner, 'viewer');
    await asUser(t, owner.cookie, owner.tenantId).patch(`/api/v1/members/${member.id}`).send({ role: 'agent' }).expect(200);
    const me = await asUser(t, member.cookie, null).get('/auth/v1/me').expect(200);
    expect(me.body.memberships[0].scopes).toStrictEqual(EXPECTED.agent.scopes);
  });

  it('matches what the API lets the role do: a scope the membership lacks is refused, one it holds is not', async () => {
    const viewer = await addMember(t, owner, 'viewer');
    const me = await asUser(t, viewer.cookie, null).get('/auth/v1/me').expect(200);
    expect(me.body.memberships[0].scopes).not.toContain('leads:write');
    const refused = await asUser(t, viewer.cookie, owner.tenantId).post('/api/v1/leads').send({ email: 'lead@example.test' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('INSUFFICIENT_ROLE');
    await asUser(t, viewer.cookie, owner.tenantId).get('/api/v1/leads').expect(200);
  });
});
