import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import type { Role } from '../../generated/prisma/enums';

export const memberSelect = { role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } } satisfies Prisma.MembershipSelect;
export type MemberRow = Prisma.MembershipGetPayload<{ select: typeof memberSelect }>;

@Injectable()
export class MembersRepository {
  constructor(private readonly prisma: PrismaService) {}

  list(tenantId: string): Promise<MemberRow[]> {
    return this.prisma.membership.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { userId: 'asc' }], select: memberSelect });
  }

  find(tenantId: string, userId: string, tx: PrismaTransaction = this.prisma): Promise<MemberRow | null> {
    return tx.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } }, select: memberSelect });
  }

  findByEmail(tenantId: string, emailKey: string, tx: PrismaTransaction = this.prisma): Promise<MemberRow | null> {
    return tx.membership.findFirst({ where: { tenantId, user: { emailKey } }, select: memberSelect });
  }

  countOwners(tenantId: string, tx: PrismaTransaction): Promise<number> {
    return tx.membership.count({ where: { tenantId, role: 'owner' } });
  }

  async updateRole(tenantId: string, userId: string, role: Role, tx: PrismaTransaction): Promise<MemberRow> {
    return tx.membership.update({ where: { tenantId_userId: { tenantId, userId } }, data: { role }, select: memberSelect });
  }

  async delete(tenantId: string, userId: string, tx: PrismaTransaction): Promise<void> {
    await tx.membership.delete({ where: { tenantId_userId: { tenantId, userId } }, select: { role: true } });
  }
}
