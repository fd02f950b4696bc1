import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import type { Role } from '../../generated/prisma/enums';

export const invitationSelect = {
  id: true,
  tenantId: true,
  email: true,
  role: true,
  invitedBy: true,
  expiresAt: true,
  acceptedAt: true,
  createdAt: true,
} satisfies Prisma.InvitationSelect;
export type InvitationRow = Prisma.InvitationGetPayload<{ select: typeof invitationSelect }>;

@Injectable()
export class InvitationsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(
    tenantId: string,
    data: { email: string; role: Role; tokenDigest: string; invitedBy: string; expiresAt: Date },
    tx: PrismaTransaction = this.prisma,
  ): Promise<InvitationRow> {
    return tx.invitation.create({ data: { tenantId, ...data }, select: invitationSelect });
  }

  /** The tenant's invitations not deleted, newest first (accepted and expired ones included, with their state). */
  list(tenantId: string): Promise<InvitationRow[]> {
    return this.prisma.invitation.findMany({
      where: { tenantId, deletedAt: null },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: invitationSelect,
    });
  }

  async delete(tenantId: string, invitationId: string, now: Date, tx: PrismaTransaction = this.prisma): Promise<boolean> {
    const { count } = await tx.invitation.updateMany({ where: { tenantId, id: invitationId, deletedAt: null }, data: { deletedAt: now } });
    return count > 0;
  }

  /** Deletes the tenant's invitations not yet accepted that `invitedBy` (an actor name) sent; their ids. */
  async deletePendingSentBy(tenantId: string, invitedBy: string, now: Date, tx: PrismaTransaction): Promise<string[]> {
    const where = { tenantId, invitedBy, acceptedAt: null, deletedAt: null };
    const pending = await tx.invitation.findMany({ where, select: { id: true }, orderBy: { id: 'asc' } });
    if (!pending.length) return [];
    await tx.invitation.updateMany({ where: { ...where, id: { in: pending.map((invitation) => invitation.id) } }, data: { deletedAt: now } });
    return pending.map((invitation) => invitation.id);
  }

  /** The invitation of a token, whatever its state (the accept step tells used from unknown by the same 410). */
  findByToken(tokenDigest: string, tx: PrismaTransaction = this.prisma): Promise<(InvitationRow & { deletedAt: Date | null }) | null> {
    return tx.invitation.findUnique({ where: { tokenDigest }, select: { ...invitationSelect, deletedAt: true } });
  }

  /** Marks it used, if it still may be: one accept wins, whatever races it. */
  async claim(invitationId: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.invitation.updateMany({
      where: { id: invitationId, acceptedAt: null, deletedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now },
    });
    return count > 0;
  }

  /** Gives back a claim whose accept could not be completed: the link works again. */
  async release(invitationId: string, claimedAt: Date): Promise<void> {
    await this.prisma.invitation.updateMany({ where: { id: invitationId, acceptedAt: claimedAt }, data: { acceptedAt: null } });
  }
}
