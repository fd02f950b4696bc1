import { Injectable, Logger } from '@nestjs/common';
import { AppError, NotFoundError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';
import type { SessionContext } from '../../common/http/request-context';
import type { PrismaTransaction } from '../../database/prisma.service';
import { InvalidationBus } from '../../invalidation/invalidation-bus';
import { digestOf, isWellFormedToken, newSecretToken } from '../secret-token';
import { SessionCache } from './session-cache';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from './session-cookie';
import { AuthenticatedSessionRow, SessionRow, SessionsRepository } from './sessions.repository';

const LAST_SEEN_RESOLUTION_MS = 60_000;

export const invalidSession = () => new AppError(ErrorCode.INVALID_SESSION, 'Sign in again: the session is missing, expired or ended.');

/** Where a session was started from, shown in the user's list of sessions. */
export interface SessionOrigin {
  userAgent: string | null;
  ip: string | null;
}

@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly cache: SessionCache,
    private readonly bus: InvalidationBus,
  ) {}

  /** Starts a session; the token goes into the cookie and is never stored or shown again. */
  async start(userId: string, origin: SessionOrigin, now = new Date(), tx?: PrismaTransaction): Promise<{ token: string; session: SessionRow }> {
    const { token, digest } = newSecretToken();
    const session = await this.sessions.create(
      userId,
      { tokenDigest: digest, userAgent: origin.userAgent?.slice(0, 512) ?? null, ip: origin.ip, expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS) },
      tx,
    );
    return { token, session };
  }

  /** The session of a cookie's token, or 401 INVALID_SESSION: missing, unknown, ended, idle 12 h or older than 7 days. */
  async authenticate(token: string | undefined, now = new Date()): Promise<SessionContext> {
    if (!isWellFormedToken(token)) throw invalidSession();
    const time = now.getTime();
    const row = await this.cache.getOrLookUp(digestOf(token), time, (digest) => this.sessions.findLive(digest));
    if (!row || row.expiresAt.getTime() <= time || row.lastSeenAt.getTime() + SESSION_IDLE_MS <= time) throw invalidSession();
    this.recordSeen(row, now);
    return contextOf(row);
  }

  list(userId: string, now = new Date()): Promise<SessionRow[]> {
    return this.sessions.listLive(userId, now);
  }

  /** Ends one of the user's own sessions; refused on every instance within a second. */
  async end(userId: string, sessionId: string, now = new Date()): Promise<void> {
    if (!(await this.sessions.end(userId, sessionId, now))) throw new NotFoundError('Session');
    await this.bus.userChanged(userId);
  }

  /** Ends every session of the user but `keep` (a new password, a reset). Announce with announceEnded after the transaction. */
  endAll(userId: string, now: Date, keep: string | undefined, tx: PrismaTransaction): Promise<void> {
    return this.sessions.endAll(userId, now, keep, tx);
  }

  /** Tells every instance that the user's sessions or memberships changed. */
  announceChanged(userId: string): Promise<void> {
    return this.bus.userChanged(userId);
  }

  /** lastSeenAt is informational and drives idle expiry at a minute's resolution: written at most once a minute, off the request's path. */
  private recordSeen(row: AuthenticatedSessionRow, now: Date): void {
    if (row.lastSeenAt.getTime() >= now.getTime() - LAST_SEEN_RESOLUTION_MS) return;
    const staleBefore = new Date(now.getTime() - LAST_SEEN_RESOLUTION_MS);
    row.lastSeenAt = now;
    this.sessions.touch(row.id, now, staleBefore).catch((error: unknown) => {
      this.logger.warn(`Could not record session use: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

// One context per cached session row, shared by the requests it serves (frozen: nobody may change it).
const contexts = new WeakMap<AuthenticatedSessionRow, SessionContext>();

function contextOf(row: AuthenticatedSessionRow): SessionContext {
  let context = contexts.get(row);
  if (!context) {
    const { memberships, ...user } = row.user;
    context = Object.freeze({
      sessionId: row.id,
      user: Object.freeze(user),
      memberships: new Map(
        memberships.map((membership) => [
          membership.tenant.id,
          Object.freeze({
            role: membership.role,
            tenant: Object.freeze({ id: membership.tenant.id, name: membership.tenant.name, slug: membership.tenant.slug, plan: membership.tenant.plan }),
          }),
        ]),
      ),
    });
    contexts.set(row, context);
  }
  return context;
}
