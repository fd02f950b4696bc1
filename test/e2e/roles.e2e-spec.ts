import { randomUUID } from 'node:crypto';
import { ROLE_SCOPES } from '../../src/accounts/roles';
import type { AccessRule } from '../../src/common/access/access.decorators';
import { ALL_SCOPES } from '../../src/common/access/scopes';
import { controllerRoutes } from '../support/controller-routes';
import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant } from '../support/factories';
import { addMember, asUser, signUp, TestUser } from '../support/users';

type Role = 'owner' | 'admin' | 'agent' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'agent', 'viewer'];

/**
 * The role x route matrix, derived from the routes the app serves (as the scope tables are): every
 * route a user may call is called by each role, and the answer is the role's: 403
 * INSUFFICIENT_ROLE exactly where the roles table says no. Ids are random (an allowed call then
 * ends in 404 or 400, after the role check), so no call changes anything.
 */
describe('Roles x routes', () => {
  let t: TestApp;
  const users = {} as Record<Role, TestUser>;
  let key: string;
  let userRoutes: { method: 'get' | 'post' | 'put' | 'patch' | 'delete'; path: string; route: string; rule: AccessRule }[];

  beforeAll(async () => {
    t = await createTestApp();
    users.owner = await signUp(t);
    for (const role of ['admin', 'agent', 'viewer'] as const) users[role] = await addMember(t, users.owner, role);
    key = (await createTenant(t)).key;
    userRoutes = controllerRoutes(t.app)
      .filter(({ rule }) => rule?.kind === 'tenantUser' || (rule?.kind === 'apiKey' && rule.scopes.length > 0))
      .map(({ route, rule }) => {
        const [method, path] = route.split(' ');
        return { method: method.toLowerCase() as 'get', path: path.replace(/:[A-Za-z]+/g, () => randomUUID()), route, rule: rule! };
      });
  });
  afterAll(() => t.close());

  const allowed = (rule: AccessRule, role: Role): boolean => {
    if (rule.kind === 'tenantUser')
      return (rule.role === 'member' || role === 'owner' || role === 'admin') && (rule.scopes ?? []).every((scope) => ROLE_SCOPES[role].includes(scope));
    return rule.kind === 'apiKey' && rule.scopes.every((scope) => ROLE_SCOPES[role].includes(scope));
  };

  it('covers the routes of every scope and the users-only routes', () => {
    const scopes = new Set(userRoutes.flatMap(({ rule }) => (rule.kind === 'apiKey' ? rule.scopes : [])));
    expect([...scopes].sort()).toEqual([...ALL_SCOPES].sort());
    expect(userRoutes.filter(({ rule }) => rule.kind === 'tenantUser').length).toBeGreaterThanOrEqual(8);
  });

  it.each(ROLES)('answers %s exactly as the roles table says, on every route', async (role) => {
    const cells: string[] = [];
    for (const { method, path, route, rule } of userRoutes) {
      const response = await asUser(t, users[role].cookie, users.owner.tenantId)
        [method](path)
        .send(method === 'get' ? undefined : {});
      const refused = response.status === 403 && response.body.error?.code === 'INSUFFICIENT_ROLE';
      const expected = allowed(rule, role);
      if (refused === expected || [401, 500].includes(response.status))
        cells.push(`${route}: ${response.status} ${response.body.error?.code ?? ''} (expected ${expected ? 'allowed' : 'INSUFFICIENT_ROLE'})`);
    }
    expect(cells).toEqual([]);
  });

  it('refuses API keys on every users-only route with 403 INSUFFICIENT_SCOPE', async () => {
    const cells: string[] = [];
    for (const { method, path, route, rule } of userRoutes.filter(({ rule }) => rule.kind === 'tenantUser')) {
      const response = await t.http()[method](path).set('X-API-Key', key);
      if (response.status !== 403 || response.body.error.code !== 'INSUFFICIENT_SCOPE') cells.push(`${route} (${rule.kind}): ${response.status}`);
    }
    expect(cells).toEqual([]);
  });

  it('gives owners and admins every scope, agents their working set, viewers every read', () => {
    expect(ROLE_SCOPES.owner).toEqual(ALL_SCOPES);
    expect(ROLE_SCOPES.admin).toEqual(ALL_SCOPES);
    expect([...ROLE_SCOPES.viewer].sort()).toEqual(ALL_SCOPES.filter((scope) => scope.endsWith(':read')).sort());
    expect(
      ROLE_SCOPES.agent.every((scope) =>
        ['bots:read', 'conversations:read', 'conversations:write', 'leads:read', 'leads:write', 'analytics:read', 'settings:read'].includes(scope),
      ),
    ).toBe(true);
    expect(ROLE_SCOPES.agent).toEqual(
      expect.arrayContaining(['bots:read', 'conversations:read', 'leads:read', 'leads:write', 'analytics:read', 'settings:read']),
    );
  });
});
