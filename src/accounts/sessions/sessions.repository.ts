import { Injectable } from '@nestjs/common';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { Prisma } from '../../generated/prisma/client';
import { membershipSelect, userSelect } from '../users/users.repository';

export const sessionSelect = { id: true, userAgent: true, ip: true, createdAt: true, lastSeenAt: true, expiresAt: true } satisfies Prisma.SessionSelect;
export type SessionRow = Prisma.SessionGetPayload<{ select: typeof sessionSelect }>;

/** A live session with what a request needs: its user and the user's memberships (one query). */
export const authenticatedSessionSelect = {
  ...sessionSelect,
  user: { select: { ...userSelect, memberships: { select: membershipSelect } } },
} satisfies Prisma.SessionSelect;
export type AuthenticatedSessionRow = Prisma.SessionGetPayload<{ select: typeof authenticatedSessionSelect }>;

@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(
    userId: string,
    data: { tokenDigest: string; userAgent: string | null; ip: string | null; expiresAt: Date },
    tx: PrismaTransaction = this.prisma,
  ): Promise<SessionRow> {
    return tx.session.create({ data: { userId, ...data }, select: sessionSelect });
  }

  /** The session of a token digest, unless it was ended; expiry is the caller's to check. */
  findLive(tokenDigest: string): Promise<AuthenticatedSessionRow | null> {
    return this.prisma.session.findFirst({ where: { tokenDigest, endedAt: null }, select: authenticatedSessionSelect });
  }

  listLive(userId: string, now: Date): Promise<SessionRow[]> {
    return this.prisma.session.findMany({
      where: { userId, endedAt: null, expiresAt: { gt: now } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: sessionSelect,
    });
  }

  /** Ends one of the user's sessions; false when it is not theirs or already ended. */
  async end(userId: string, sessionId: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.session.updateMany({ where: { id: sessionId, userId, endedAt: null }, data: { endedAt: now } });
    return count > 0;
  }

  /** Ends every session of the user but `keep` (a password change keeps the one that made it). */
  async endAll(userId: string, now: Date, keep?: string, tx: PrismaTransaction = this.prisma): Promise<void> {
    await tx.session.updateMany({ where: { userId, endedAt: null, ...(keep ? { id: { not: keep } } : {}) }, data: { endedAt: now } });
  }

  /** lastSeenAt is written at most once a minute, off the request's path. */
  async touch(sessionId: string, now: Date, staleBefore: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { id: sessionId, lastSeenAt: { lt: staleBefore } }, data: { lastSeenAt: now } });
  }
}
