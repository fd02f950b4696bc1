import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';

@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(userId: string, data: { tokenDigest: string; expiresAt: Date }): Promise<void> {
    await this.prisma.passwordReset.create({ data: { userId, ...data }, select: { id: true } });
  }

  /** Uses a token, if it still may be (single use, within its hour): its user's id, or null. */
  async claim(tokenDigest: string, now: Date, tx: PrismaTransaction): Promise<string | null> {
    const found = await tx.passwordReset.findUnique({ where: { tokenDigest }, select: { id: true, userId: true } });
    if (!found) return null;
    const { count } = await tx.passwordReset.updateMany({ where: { id: found.id, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    return count ? found.userId : null;
  }
}
