import { Injectable } from '@nestjs/common';
import { AppError, NotFoundError, ValidationError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';
import type { SessionContext, UserPrincipal } from '../../common/http/request-context';
import { PrismaService } from '../../database/prisma.service';
import { userActorName, type Actor } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import type { Role } from '../../generated/prisma/enums';
import { Mailer } from '../../mail/mailer';
import { AccountLimits } from '../account-limits';
import type { SignedIn } from '../auth.service';
import { MembersRepository } from '../members/members.repository';
import { PasswordHasher } from '../passwords/password-hasher';
import { assertAcceptablePassword } from '../passwords/password-rules';
import { insufficientRole } from '../permission.guard';
import { managesOwners } from '../roles';
import { digestOf, isWellFormedToken, newSecretToken } from '../secret-token';
import { SessionOrigin, SessionsService } from '../sessions/sessions.service';
import { emailKeyOf, UsersRepository } from '../users/users.repository';
import { invitationMail } from './invitation-mail';
import { InvitationRow, InvitationsRepository } from './invitations.repository';

export const INVITATION_LIFETIME_MS = 7 * 24 * 3_600_000;

const expired = () => new AppError(ErrorCode.INVITATION_EXPIRED, 'This invitation was used, withdrawn, or is more than 7 days old: ask for a new one.');

/**
 * Invitations to a tenant: a single-use link valid 7 days, its token stored as a digest and shown
 * once (in the creating answer, and in the mail). Accepting creates the user, or adds the
 * membership to the signed-in user whose e-mail it was sent to.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly invitations: InvitationsRepository,
    private readonly members: MembersRepository,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly events: EventRecorder,
    private readonly mailer: Mailer,
    private readonly limits: AccountLimits,
  ) {}

  async invite(
    caller: UserPrincipal,
    input: { email: string; role: Role },
    actor: Actor,
    acceptUrlOf: (token: string) => string,
  ): Promise<{ invitation: InvitationRow; acceptUrl: string }> {
    if (managesOwners(input.role) && !managesOwners(caller.user.role)) throw insufficientRole('Only owners may invite owners.');
    const tenantId = caller.tenant.id;
    if (await this.members.findByEmail(tenantId, emailKeyOf(input.email)))
      throw new AppError(ErrorCode.CONFLICT, 'This person is already a member of the tenant.');
    await this.limits.countInvitation(tenantId, caller.tenant.plan);
    const { token, digest } = newSecretToken();
    const invitation = await this.prisma.$transaction(async (tx) => {
      const created = await this.invitations.create(
        tenantId,
        { email: input.email, role: input.role, tokenDigest: digest, invitedBy: actor.name, expiresAt: new Date(Date.now() + INVITATION_LIFETIME_MS) },
        tx,
      );
      await this.events.record(tx, tenantId, actor, {
        action: 'invitation.created',
        targetId: created.id,
        data: { email: created.email, role: created.role },
      });
      return created;
    });
    const acceptUrl = acceptUrlOf(token);
    await this.mailer.send(invitationMail(invitation.email, caller.tenant.name, invitation.role, acceptUrl), acceptUrl);
    return { invitation, acceptUrl };
  }

  list(tenantId: string): Promise<InvitationRow[]> {
    return this.invitations.list(tenantId);
  }

  /** Withdraws an invitation: its link is refused from now on, like a used one. */
  async withdraw(tenantId: string, invitationId: string, actor: Actor): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      if (!(await this.invitations.delete(tenantId, invitationId, new Date(), tx))) throw new NotFoundError('Invitation');
      await this.events.record(tx, tenantId, actor, { action: 'invitation.deleted', targetId: invitationId });
    });
  }

  /**
   * Accepts an invitation: with a session whose e-mail is the invitation's, adds the membership;
   * otherwise creates the user (name and password needed). An e-mail that already has a user must
   * sign in first. Used, withdrawn and expired links are 410; one accept wins a race. Nothing is
   * hashed before the address's limit is counted, every check has passed and the invitation is
   * claimed (API_DECISIONS part 4); a claim whose account could not be made is given back.
   */
  async accept(
    token: string,
    input: { name?: string; password?: string },
    session: SessionContext | undefined,
    origin: SessionOrigin & { ip: string; requestId: string },
  ): Promise<SignedIn> {
    await this.limits.countNewPassword(origin.ip);
    const invitation = isWellFormedToken(token) ? await this.invitations.findByToken(digestOf(token)) : null;
    if (!invitation || invitation.acceptedAt || invitation.deletedAt || invitation.expiresAt <= new Date()) throw expired();
    const signedInAsInvitee = session && emailKeyOf(session.user.email) === emailKeyOf(invitation.email) ? session.user.id : undefined;
    if (!signedInAsInvitee) await this.assertCanCreateAccount(invitation.email, input);
    const claimedAt = new Date();
    if (!(await this.invitations.claim(invitation.id, claimedAt))) throw expired();
    let signedIn: SignedIn;
    try {
      const passwordHash = signedInAsInvitee ? undefined : await this.hasher.hash(input.password!);
      signedIn = await this.join(invitation, signedInAsInvitee ?? { name: input.name!, passwordHash: passwordHash! }, origin);
    } catch (error) {
      await this.invitations.release(invitation.id, claimedAt);
      throw error;
    }
    await this.sessions.announceChanged(signedIn.user.id);
    return signedIn;
  }

  /** The claimed invitation's effect, in one transaction: the user (existing, by id, or new), the membership, the event, a session. */
  private join(
    invitation: InvitationRow,
    user: string | { name: string; passwordHash: string },
    origin: SessionOrigin & { ip: string; requestId: string },
  ): Promise<SignedIn> {
    return this.prisma.$transaction(async (tx) => {
      const member = typeof user === 'string' ? (await this.users.findById(user, tx))! : await this.users.create({ email: invitation.email, ...user }, tx);
      await this.users.addMembership(invitation.tenantId, member.id, invitation.role, tx);
      const actor: Actor = { name: userActorName(member.id), requestId: origin.requestId, ip: origin.ip };
      await this.events.record(tx, invitation.tenantId, actor, {
        action: 'member.added',
        targetId: member.id,
        data: { role: invitation.role, invitationId: invitation.id },
      });
      const { token } = await this.sessions.start(member.id, origin, new Date(), tx);
      return { user: member, memberships: await this.users.memberships(member.id, tx), token };
    });
  }

  /** A new account from an invitation: the e-mail without a user yet, a name, and an acceptable password. */
  private async assertCanCreateAccount(email: string, input: { name?: string; password?: string }): Promise<void> {
    if (await this.users.findByEmail(email))
      throw new AppError(ErrorCode.EMAIL_TAKEN, 'This e-mail already has an account: sign in as that user, then accept the invitation.');
    const missing = (['name', 'password'] as const).filter((field) => input[field] === undefined);
    if (missing.length) throw new ValidationError(missing.map((field) => ({ field, message: 'is required to create your account' })));
    await assertAcceptablePassword(input.password!, email);
  }
}
