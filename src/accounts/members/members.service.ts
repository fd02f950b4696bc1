import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';
import type { UserPrincipal } from '../../common/http/request-context';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { userActorName, type Actor } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import type { Role } from '../../generated/prisma/enums';
import { ApiKeysService } from '../../tenancy/api-keys/api-keys.service';
import { TenantsRepository } from '../../tenancy/tenants.repository';
import { InvitationsRepository } from '../invitations/invitations.repository';
import { insufficientRole } from '../permission.guard';
import { assignableRoles, isManager, ROLES } from '../roles';
import { SessionsService } from '../sessions/sessions.service';
import { MemberRow, MembersRepository } from './members.repository';

const lastOwner = () => new AppError(ErrorCode.LAST_OWNER, 'A tenant needs an owner: make another member owner first.');

/**
 * Members and their roles. Owners manage everyone; admins manage the members who are not owners
 * and cannot make owners; anyone may leave. The last owner can be neither demoted nor removed.
 * Changes are serialised per tenant (its row locked), so two owners demoting each other at once
 * cannot both succeed. A member removed or demoted loses the invitations they sent and that are
 * still pending (an invitation grants what its sender could, so it must not outlive their role);
 * a removal may also revoke the API keys they created.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly members: MembersRepository,
    private readonly tenants: TenantsRepository,
    private readonly sessions: SessionsService,
    private readonly events: EventRecorder,
    private readonly invitations: InvitationsRepository,
    private readonly apiKeys: ApiKeysService,
  ) {}

  list(tenantId: string): Promise<MemberRow[]> {
    return this.members.list(tenantId);
  }

  async changeRole(caller: UserPrincipal, userId: string, role: Role, actor: Actor): Promise<MemberRow> {
    const tenantId = caller.tenant.id;
    const updated = await this.prisma.$transaction(async (tx) => {
      const target = await this.lockedMember(tx, tenantId, userId);
      assertMayManage(await this.currentRole(tx, caller), target.role, role);
      if (target.role === role) return target;
      if (target.role === 'owner' && (await this.members.countOwners(tenantId, tx)) === 1) throw lastOwner();
      const member = await this.members.updateRole(tenantId, userId, role, tx);
      await this.events.record(tx, tenantId, actor, {
        action: 'member.role_changed',
        targetId: userId,
        data: { from: target.role, to: role },
      });
      if (isDemotion(target.role, role)) await this.deletePendingInvitations(tx, tenantId, userId, actor);
      return member;
    });
    await this.sessions.announceChanged(userId);
    return updated;
  }

  /** Removes the member (or the caller leaves); with `revokeKeys`, the API keys they created in the tenant go too, each audited. */
  async remove(caller: UserPrincipal, userId: string, actor: Actor, revokeKeys = false): Promise<void> {
    const tenantId = caller.tenant.id;
    const revoked = await this.prisma.$transaction(async (tx) => {
      const target = await this.lockedMember(tx, tenantId, userId);
      if (userId !== caller.user.id) assertMayManage(await this.currentRole(tx, caller), target.role, target.role);
      if (target.role === 'owner' && (await this.members.countOwners(tenantId, tx)) === 1) throw lastOwner();
      await this.members.delete(tenantId, userId, tx);
      await this.events.record(tx, tenantId, actor, { action: 'member.removed', targetId: userId, data: { role: target.role } });
      await this.deletePendingInvitations(tx, tenantId, userId, actor);
      return revokeKeys ? this.apiKeys.revokeKeysCreatedBy(tx, tenantId, userId, actor) : [];
    });
    await this.sessions.announceChanged(userId);
    if (revoked.length) await this.apiKeys.keysRevoked(tenantId);
  }

  /** Each deletion audited as if the member's manager had deleted it. */
  private async deletePendingInvitations(tx: PrismaTransaction, tenantId: string, userId: string, actor: Actor): Promise<void> {
    const deleted = await this.invitations.deletePendingSentBy(tenantId, userActorName(userId), new Date(), tx);
    for (const invitationId of deleted) {
      await this.events.record(tx, tenantId, actor, { action: 'invitation.deleted', targetId: invitationId, data: { reason: 'sender_lost_role' } });
    }
  }

  /**
   * The caller's role as the locked tenant has it now: the session's copy may be a second old, and
   * two owners demoting each other at once must not both pass on their old roles.
   */
  private async currentRole(tx: PrismaTransaction, caller: UserPrincipal): Promise<Role> {
    const member = await this.members.find(caller.tenant.id, caller.user.id, tx);
    if (!member) throw insufficientRole('You are no longer a member of this tenant.');
    return member.role;
  }

  private async lockedMember(tx: PrismaTransaction, tenantId: string, userId: string): Promise<MemberRow> {
    await this.tenants.lock(tenantId, tx);
    const member = await this.members.find(tenantId, userId, tx);
    if (!member) throw new NotFoundError('Member');
    return member;
  }
}

/** A move down the roles (owner, admin, agent, viewer). */
const isDemotion = (from: Role, to: Role): boolean => ROLES.indexOf(to) > ROLES.indexOf(from);

/** Owners manage anyone; admins only members who are not owners, and cannot make owners. */
function assertMayManage(callerRole: Role, currentRole: Role, newRole: Role): void {
  if (!isManager(callerRole)) throw insufficientRole(`Only owners and admins may change other members; your role is ${callerRole}.`);
  const assignable = assignableRoles(callerRole);
  if (!assignable.includes(currentRole) || !assignable.includes(newRole)) throw insufficientRole('Only owners may change owners or make a member owner.');
}
