import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../../common/errors/app-error';
import { PrismaService } from '../../database/prisma.service';
import { Mailer } from '../../mail/mailer';
import { AccountLimits } from '../account-limits';
import { LoginThrottle } from '../login-throttle';
import { PasswordHasher } from '../passwords/password-hasher';
import { assertAcceptablePassword } from '../passwords/password-rules';
import { digestOf, isWellFormedToken, newSecretToken } from '../secret-token';
import { SessionsService } from '../sessions/sessions.service';
import { UsersRepository } from '../users/users.repository';
import { PasswordResetsRepository } from './password-resets.repository';

export const RESET_LIFETIME_MS = 3_600_000;

const unusable = () => ValidationError.field('token', 'is not a valid reset token: it was used, is more than an hour old, or was never issued');

/**
 * Password resets by single-use link, valid one hour, its token stored as a digest. Asking for one
 * answers the same whether the e-mail has a user or not (at most 3 mails a user an hour); using one
 * sets the password and ends every session and every other outstanding token of the user.
 */
@Injectable()
export class PasswordResetsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly resets: PasswordResetsRepository,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly mailer: Mailer,
    private readonly limits: AccountLimits,
    private readonly loginThrottle: LoginThrottle,
  ) {}

  /** Mails a link when the e-mail has a user and has had fewer than 3 this hour; the caller answers 202 either way. */
  async request(email: string, resetUrlOf: (token: string) => string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user || !(await this.limits.takeResetMail(user.id))) return;
    const resetUrl = await this.issue(user.id, resetUrlOf);
    // Not awaited: an SMTP round trip would tell a known e-mail from an unknown one by the time taken.
    void this.mailer.send(
      {
        to: user.email,
        subject: 'Reset your password',
        text: `Someone (we hope you) asked to reset your password.\n\nSet a new one within an hour: ${resetUrl}\n\nIf it was not you, ignore this mail.`,
      },
      resetUrl,
    );
  }

  /** A reset link for a user, returned to the operator (the admin API, for platforms without mail). */
  async issueForAdmin(userId: string, resetUrlOf: (token: string) => string): Promise<string> {
    if (!(await this.users.findById(userId))) throw new NotFoundError('User');
    return this.issue(userId, resetUrlOf);
  }

  /**
   * Sets a new password with a reset token, cheapest checks first and nothing hashed before the
   * token is claimed (API_DECISIONS part 4): the address's limit, the token, the password's rules;
   * then the claim, the hash and the completion. A claim whose password could not be hashed (503,
   * the hashing busy) is given back, so that a busy moment does not cost the person their link.
   */
  async confirm(token: string, password: string, clientIp: string): Promise<void> {
    await this.limits.countNewPassword(clientIp);
    const claimedAt = new Date();
    const reset = isWellFormedToken(token) ? await this.resets.findUsable(digestOf(token), claimedAt) : null;
    if (!reset) throw unusable();
    await assertAcceptablePassword(password, reset.email);
    if (!(await this.resets.claim(reset.id, claimedAt))) throw unusable();
    const passwordHash = await this.hasher.hash(password).catch(async (error: unknown) => {
      await this.resets.release(reset.id, claimedAt);
      throw error;
    });
    await this.complete(reset.userId, reset.email, passwordHash);
  }

  /**
   * A completed reset: the new password, every session and every other outstanding reset token of
   * the user ended, and the e-mail's failed log-ins forgotten (the owner of the mailbox has proven
   * themselves: a stranger's guesses no longer lock them out; API_DECISIONS part 4).
   */
  private async complete(userId: string, email: string, passwordHash: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const now = new Date();
      await this.users.update(userId, { passwordHash }, tx);
      await this.sessions.endAll(userId, now, undefined, tx);
      await this.resets.endOutstanding(userId, now, tx);
    });
    await this.sessions.announceChanged(userId);
    await this.loginThrottle.forgetFailures(email);
  }

  private async issue(userId: string, resetUrlOf: (token: string) => string): Promise<string> {
    const { token, digest } = newSecretToken();
    await this.resets.create(userId, { tokenDigest: digest, expiresAt: new Date(Date.now() + RESET_LIFETIME_MS) });
    return resetUrlOf(token);
  }
}
