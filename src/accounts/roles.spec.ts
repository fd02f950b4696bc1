import { ALL_SCOPES } from '../common/access/scopes';
import { assignableRoles, isManager, managesOwners, ROLE_CAPABILITIES, ROLE_SCOPES, ROLES } from './roles';

describe('roles', () => {
  it('lets owners give every role, admins every role but owner, agents and viewers none', () => {
    expect(assignableRoles('owner')).toEqual(['owner', 'admin', 'agent', 'viewer']);
    expect(assignableRoles('admin')).toEqual(['admin', 'agent', 'viewer']);
    expect(assignableRoles('agent')).toEqual([]);
    expect(assignableRoles('viewer')).toEqual([]);
  });

  it('derives the managers and the owners-only rule from the capabilities table', () => {
    expect(ROLES.filter(isManager)).toEqual(['owner', 'admin']);
    expect(ROLES.filter(managesOwners)).toEqual(['owner']);
    expect(ROLE_CAPABILITIES.agent).toEqual([]);
  });

  it('gives owners and admins every scope and viewers only the read scopes', () => {
    expect(ROLE_SCOPES.owner).toEqual(ALL_SCOPES);
    expect(ROLE_SCOPES.admin).toEqual(ALL_SCOPES);
    expect(ROLE_SCOPES.viewer.every((scope) => scope.endsWith(':read'))).toBe(true);
    expect(ROLE_SCOPES.agent).toContain('conversations:write');
  });
});
