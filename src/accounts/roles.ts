import { ALL_SCOPES, type Scope } from '../common/access/scopes';
import type { Role } from '../generated/prisma/enums';

export const ROLES: readonly Role[] = ['owner', 'admin', 'agent', 'viewer'];

/** What an agent does: answer conversations and work the leads (API_DECISIONS part 3, roles table). */
const AGENT_SCOPES: readonly string[] = [
  'bots:read',
  'conversations:read',
  'conversations:write',
  'leads:read',
  'leads:write',
  'analytics:read',
  'settings:read',
];

/**
 * A role is a set of the scopes keys use, so a user's request is checked like a key's. Owners and
 * admins hold every scope; a scope added later reaches them at once, and an agent's or viewer's
 * list names only scopes that exist.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  owner: ALL_SCOPES,
  admin: ALL_SCOPES,
  agent: ALL_SCOPES.filter((scope) => AGENT_SCOPES.includes(scope)),
  viewer: ALL_SCOPES.filter((scope) => scope.endsWith(':read')),
};

/** What a member may do beyond the scopes: the roles table's "also may" (API_DECISIONS part 3). */
export const Capability = {
  /** Members other than owners, invitations, API keys, bots (create, update, `isActive`), the audit log, the tenant's name. */
  TenantManage: 'tenant:manage',
  /** Owners: invite owners, make a member owner, change or remove an owner. */
  OwnersManage: 'owners:manage',
} as const;

export type Capability = (typeof Capability)[keyof typeof Capability];

export const CAPABILITIES: readonly Capability[] = Object.values(Capability);

export const ROLE_CAPABILITIES: Readonly<Record<Role, readonly Capability[]>> = {
  owner: [Capability.TenantManage, Capability.OwnersManage],
  admin: [Capability.TenantManage],
  agent: [],
  viewer: [],
};

/** Owners and admins run the tenant: members, invitations, API keys, bots, the audit log, its name. */
export const isManager = (role: Role): boolean => ROLE_CAPABILITIES[role].includes(Capability.TenantManage);

/** Only owners make, change and remove owners. */
export const managesOwners = (role: Role): boolean => ROLE_CAPABILITIES[role].includes(Capability.OwnersManage);

/**
 * The roles a member may give (invite with, change a member to) and whose holders it may change:
 * every role for owners, every role but owner for admins, none for agents and viewers.
 */
export const assignableRoles = (role: Role): Role[] => (isManager(role) ? ROLES.filter((each) => managesOwners(role) || !managesOwners(each)) : []);
