import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import type { Role } from '../../generated/prisma/enums';
import { tenantSelect } from '../../tenancy/tenants.repository';

export const userSelect = { id: true, email: true, name: true, createdAt: true } satisfies Prisma.UserSelect;
export type UserRow = Prisma.UserGetPayload<{ select: typeof userSelect }>;

export const membershipSelect = { role: true, createdAt: true, tenant: { select: tenantSelect } } satisfies Prisma.MembershipSelect;
export type MembershipRow = Prisma.MembershipGetPayload<{ select: typeof membershipSelect }>;

/** The key a user's e-mail is unique and found by: trimmed, lower-cased. */
export const emailKeyOf = (email: string) => email.trim().toLowerCase();

/**
 * Users are global (one person, several tenants): the one table here not scoped by tenant. Every
 * tenant-facing read goes through a membership (MembershipsRepository), which is.
 */
@Injectable()
export class UsersRepository {
  constructor(private readonly prisma: PrismaService) {}

  findById(userId: string, tx: PrismaTransaction = this.prisma): Promise<UserRow | null> {
    return tx.user.findUnique({ where: { id: userId }, select: userSelect });
  }

  findByEmail(email: string, tx: PrismaTransaction = this.prisma): Promise<UserRow | null> {
    return tx.user.findUnique({ where: { emailKey: emailKeyOf(email) }, select: userSelect });
  }

  /** The user and the stored hash, for a log-in; the hash never leaves the accounts services. */
  findCredentials(email: string): Promise<(UserRow & { passwordHash: string }) | null> {
    return this.prisma.user.findUnique({ where: { emailKey: emailKeyOf(email) }, select: { ...userSelect, passwordHash: true } });
  }

  async passwordHashOf(userId: string): Promise<string | undefined> {
    return (await this.prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } }))?.passwordHash;
  }

  create(data: { email: string; name: string; passwordHash: string }, tx: PrismaTransaction = this.prisma): Promise<UserRow> {
    return tx.user.create({
      data: { email: data.email.trim(), emailKey: emailKeyOf(data.email), name: data.name, passwordHash: data.passwordHash },
      select: userSelect,
    });
  }

  update(userId: string, data: { name?: string; passwordHash?: string }, tx: PrismaTransaction = this.prisma): Promise<UserRow> {
    return tx.user.update({ where: { id: userId }, data, select: userSelect });
  }

  memberships(userId: string, tx: PrismaTransaction = this.prisma): Promise<MembershipRow[]> {
    return tx.membership.findMany({ where: { userId }, orderBy: [{ createdAt: 'asc' }, { tenantId: 'asc' }], select: membershipSelect });
  }

  addMembership(tenantId: string, userId: string, role: Role, tx: PrismaTransaction = this.prisma): Promise<void> {
    return tx.membership
      .upsert({ where: { tenantId_userId: { tenantId, userId } }, create: { tenantId, userId, role }, update: {}, select: { role: true } })
      .then(() => undefined);
  }
}
