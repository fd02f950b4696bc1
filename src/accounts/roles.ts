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

/** Owners and admins run the tenant: members, invitations, API keys, bots, the audit log, its name. */
export const isManager = (role: Role): boolean => role === 'owner' || role === 'admin';
