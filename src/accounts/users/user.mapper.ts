import { ApiProperty } from '@nestjs/swagger';
import { Plan, PLAN_NAMES } from '../../tenancy/plans';
import type { Role } from '../../generated/prisma/enums';
import { ALL_SCOPES, type Scope } from '../../common/access/scopes';
import { assignableRoles, CAPABILITIES, type Capability, ROLE_CAPABILITIES, ROLE_SCOPES, ROLES } from '../roles';
import type { SessionRow } from '../sessions/sessions.repository';
import type { MembershipRow, UserRow } from './users.repository';

export class UserResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class MembershipTenant {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty()
  slug: string;

  @ApiProperty({ enum: PLAN_NAMES, enumName: 'Plan' })
  plan: Plan;
}

export class MembershipResponse {
  @ApiProperty({ type: MembershipTenant })
  tenant: MembershipTenant;

  @ApiProperty({ enum: ROLES, enumName: 'Role' })
  role: Role;

  @ApiProperty({
    enum: ALL_SCOPES,
    enumName: 'Scope',
    isArray: true,
    description: "The role's scopes: what the member may do on the tenant API routes keys share (a key with these scopes could do the same).",
  })
  scopes: Scope[];

  @ApiProperty({
    enum: CAPABILITIES,
    enumName: 'Capability',
    isArray: true,
    description:
      '`tenant:manage` (owners and admins): members other than owners, invitations, API keys, bots, the audit log, the tenant name. `owners:manage` (owners): invite, make, change and remove owners.',
  })
  capabilities: Capability[];

  @ApiProperty({
    enum: ROLES,
    enumName: 'Role',
    isArray: true,
    description:
      'The roles the member may give (invite with, change a member to), which are also the roles of the members whose role it may change or whom it may remove; empty for agents and viewers.',
  })
  assignableRoles: Role[];
}

/** Who is signed in and where: the answer of sign-up, log-in, `/auth/v1/me` and accepting an invitation. */
export class AccountResponse {
  @ApiProperty({ type: UserResponse })
  user: UserResponse;

  @ApiProperty({ type: [MembershipResponse] })
  memberships: MembershipResponse[];
}

export class SessionResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  lastSeenAt: string;

  @ApiProperty({ type: String, nullable: true })
  userAgent: string | null;

  @ApiProperty({ type: String, nullable: true })
  ip: string | null;

  @ApiProperty({ description: 'Whether this is the session of the request.' })
  current: boolean;
}

export class SessionListResponse {
  @ApiProperty({ type: [SessionResponse] })
  sessions: SessionResponse[];
}

export function toUserResponse(row: UserRow): UserResponse {
  return { id: row.id, email: row.email, name: row.name, createdAt: row.createdAt.toISOString() };
}

export function toMembershipResponse(row: Pick<MembershipRow, 'role' | 'tenant'>): MembershipResponse {
  return {
    tenant: { id: row.tenant.id, name: row.tenant.name, slug: row.tenant.slug, plan: row.tenant.plan },
    role: row.role,
    scopes: [...ROLE_SCOPES[row.role]],
    capabilities: [...ROLE_CAPABILITIES[row.role]],
    assignableRoles: assignableRoles(row.role),
  };
}

export function toAccountResponse(user: UserRow, memberships: readonly Pick<MembershipRow, 'role' | 'tenant'>[]): AccountResponse {
  return { user: toUserResponse(user), memberships: memberships.map(toMembershipResponse) };
}

export function toSessionResponse(row: SessionRow, currentId: string): SessionResponse {
  return {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    lastSeenAt: row.lastSeenAt.toISOString(),
    userAgent: row.userAgent,
    ip: row.ip,
    current: row.id === currentId,
  };
}
