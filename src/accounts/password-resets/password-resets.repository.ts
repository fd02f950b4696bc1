import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';

/** A reset token still usable (unused, within its hour), with its user's e-mail (the password rules need it). */
export interface UsableResetRow {
  id: string;
  userId: string;
  email: string;
}

@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(userId: string, data: { tokenDigest: string; expiresAt: Date }): Promise<void> {
    await this.prisma.passwordReset.create({ data: { userId, ...data }, select: { id: true } });
  }

  async findUsable(tokenDigest: string, now: Date): Promise<UsableResetRow | null> {
    const found = await this.prisma.passwordReset.findFirst({
      where: { tokenDigest, usedAt: null, expiresAt: { gt: now } },
      select: { id: true, userId: true, user: { select: { email: true } } },
    });
    return found && { id: found.id, userId: found.userId, email: found.user.email };
  }

  /** Uses a token, if it still may be (single use, within its hour): one confirmation wins, whatever races it. */
  async claim(resetId: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.passwordReset.updateMany({ where: { id: resetId, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    return count > 0;
  }

  /** Gives back a claim whose reset could not be completed (the hashing was busy): the link works again. */
  async release(resetId: string, claimedAt: Date): Promise<void> {
    await this.prisma.passwordReset.updateMany({ where: { id: resetId, usedAt: claimedAt }, data: { usedAt: null } });
  }

  /** Ends every token of the user still outstanding (a completed reset, a password change): refused like used ones. */
  async endOutstanding(userId: string, now: Date, tx: PrismaTransaction = this.prisma): Promise<void> {
    await tx.passwordReset.updateMany({ where: { userId, usedAt: null }, data: { usedAt: now } });
  }
}
