import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ValidationError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { SessionContext } from '../common/http/request-context';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { PrismaService } from '../database/prisma.service';
import type { Actor } from '../events/actor';
import { userActorName } from '../events/actor';
import { EventRecorder } from '../events/event-recorder';
import { Prisma } from '../generated/prisma/client';
import { TenantsRepository } from '../tenancy/tenants.repository';
import { AccountLimits } from './account-limits';
import { LoginThrottle } from './login-throttle';
import { PasswordResetsRepository } from './password-resets/password-resets.repository';
import { PasswordHasher } from './passwords/password-hasher';
import { assertAcceptablePassword } from './passwords/password-rules';
import { SessionOrigin, SessionsService } from './sessions/sessions.service';
import { MembershipRow, UserRow, UsersRepository } from './users/users.repository';

/** A signed-in account: the user, their memberships, and the new session's token for the cookie. */
export interface SignedIn {
  user: UserRow;
  memberships: MembershipRow[];
  token: string;
}

const invalidCredentials = () => new AppError(ErrorCode.INVALID_CREDENTIALS, 'The e-mail or password is wrong.');

@Injectable()
export class AuthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly prisma: PrismaService,
    private readonly users: UsersRepository,
    private readonly tenants: TenantsRepository,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly events: EventRecorder,
    private readonly limits: AccountLimits,
    private readonly resets: PasswordResetsRepository,
  ) {}

  /**
   * A new tenant on Free with the new user as its owner, and a session (API_DECISIONS part 3,
   * Sign-up). The address's limits are counted before anything is hashed: the minute's (shared with
   * resets and invitations) first, the day's once the request would create a tenant, so that a
   * person who mistypes does not lose a sign-up of the day.
   */
  async signUp(
    input: { email: string; password: string; name: string; tenantName: string },
    origin: SessionOrigin & { ip: string; requestId: string },
  ): Promise<SignedIn> {
    if (!this.config.signupOpen) throw new AppError(ErrorCode.SIGNUP_CLOSED, 'Sign-up is closed on this service: ask a tenant owner for an invitation.');
    await this.limits.countNewPassword(origin.ip);
    await assertAcceptablePassword(input.password, input.email);
    if (await this.users.findByEmail(input.email)) throw emailTaken();
    await this.limits.countSignUp(origin.ip);
    const passwordHash = await this.hasher.hash(input.password);
    try {
      return await this.prisma.$transaction(async (tx) => {
        const user = await this.users.create({ email: input.email, name: input.name, passwordHash }, tx);
        const tenant = await this.tenants.create({ name: input.tenantName, slug: slugOf(input.tenantName), plan: 'free' }, tx);
        await this.users.addMembership(tenant.id, user.id, 'owner', tx);
        const actor: Actor = { name: userActorName(user.id), requestId: origin.requestId, ip: origin.ip };
        await this.events.record(tx, tenant.id, actor, { action: 'tenant.created', targetId: tenant.id, data: { plan: tenant.plan } });
        await this.events.record(tx, tenant.id, actor, { action: 'member.added', targetId: user.id, data: { role: 'owner' } });
        const { token } = await this.sessions.start(user.id, origin, new Date(), tx);
        return { user, memberships: await this.users.memberships(user.id, tx), token };
      });
    } catch (error) {
      // Two sign-ups with one e-mail at once: the unique index decides.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw emailTaken();
      throw error;
    }
  }

  /**
   * Takes a guess from the throttles first (a throttled guesser learns nothing), then checks the
   * password; an unknown e-mail costs the same hash as a wrong password and gets the same answer.
   * `trustedDevice`: the browser holds this e-mail's device cookie (spared the per-e-mail limit).
   */
  async logIn(input: { email: string; password: string }, origin: SessionOrigin & { ip: string }, trustedDevice: boolean): Promise<SignedIn> {
    const found = await this.throttle.attempt(input.email, origin.ip, trustedDevice, async () => {
      const credentials = await this.users.findCredentials(input.email);
      return (await this.hasher.verifyLogIn(credentials?.passwordHash, input.password)) ? (credentials ?? undefined) : undefined;
    });
    if (!found) throw invalidCredentials();
    const { passwordHash: _, ...user } = found;
    const { token } = await this.sessions.start(user.id, origin);
    return { user, memberships: await this.users.memberships(user.id), token };
  }

  async account(session: SessionContext): Promise<{ user: UserRow; memberships: MembershipRow[] }> {
    const user = await this.users.findById(session.user.id);
    if (!user) throw new AppError(ErrorCode.INVALID_SESSION, 'Sign in again: the session is missing, expired or ended.');
    return { user, memberships: await this.users.memberships(user.id) };
  }

  /**
   * Renames the user or changes the password, proven by the current password (throttled like a
   * log-in: a stolen session must not become a password oracle). A new password ends every other
   * session of the user and every outstanding reset link.
   */
  async updateAccount(
    session: SessionContext,
    input: { name?: string; password?: string; currentPassword: string },
    ip: string,
    trustedDevice: boolean,
  ): Promise<{ user: UserRow; memberships: MembershipRow[] }> {
    const { user: current } = session;
    const proven = await this.throttle.attempt(current.email, ip, trustedDevice, async () =>
      (await this.hasher.verify(await this.users.passwordHashOf(current.id), input.currentPassword)) ? true : undefined,
    );
    if (!proven) throw ValidationError.field('currentPassword', 'is not your current password');
    if (input.password !== undefined) await assertAcceptablePassword(input.password, current.email);
    const passwordHash = input.password === undefined ? undefined : await this.hasher.hash(input.password);
    const user = await this.prisma.$transaction(async (tx) => {
      const updated = await this.users.update(current.id, { name: input.name, passwordHash }, tx);
      if (passwordHash) {
        const now = new Date();
        await this.sessions.endAll(current.id, now, session.sessionId, tx);
        await this.resets.endOutstanding(current.id, now, tx);
      }
      return updated;
    });
    await this.sessions.announceChanged(current.id);
    return { user, memberships: await this.users.memberships(user.id) };
  }
}

const emailTaken = () => new AppError(ErrorCode.EMAIL_TAKEN, 'A user with this e-mail already exists: sign in, or reset the password.');

/** A tenant's slug from its name: readable, and unique by a random suffix (names need not be). */
export function slugOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${base || 'tenant'}-${randomBytes(3).toString('hex')}`;
}
