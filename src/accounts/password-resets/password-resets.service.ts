import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationError } from '../../common/errors/app-error';
import { PrismaService } from '../../database/prisma.service';
import { Mailer } from '../../mail/mailer';
import { LoginThrottle } from '../login-throttle';
import { PasswordHasher } from '../passwords/password-hasher';
import { digestOf, isWellFormedToken, newSecretToken } from '../secret-token';
import { SessionsService } from '../sessions/sessions.service';
import { UsersRepository } from '../users/users.repository';
import { PasswordResetsRepository } from './password-resets.repository';

export const RESET_LIFETIME_MS = 3_600_000;

const unusable = () => ValidationError.field('token', 'is not a valid reset token: it was used, is more than an hour old, or was never issued');

/**
 * Password resets by single-use link, valid one hour, its token stored as a digest. Asking for one
 * answers the same whether the e-mail has a user or not; using one sets the password and ends
 * every session of the user.
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
    private readonly loginThrottle: LoginThrottle,
  ) {}

  /** Mails a link when the e-mail has a user; the caller answers 202 either way. */
  async request(email: string, resetUrlOf: (token: string) => string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user) return;
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

  async confirm(token: string, password: string): Promise<void> {
    if (!isWellFormedToken(token)) throw unusable();
    const passwordHash = await this.hasher.hash(password);
    const userId = await this.prisma.$transaction(async (tx) => {
      const now = new Date();
      const claimed = await this.resets.claim(digestOf(token), now, tx);
      if (!claimed) throw unusable();
      await this.users.update(claimed, { passwordHash }, tx);
      await this.sessions.endAll(claimed, now, undefined, tx);
      return claimed;
    });
    await this.sessions.announceChanged(userId);
    await this.forgetLoginFailures(userId);
  }

  /** The owner of the mailbox has proven themselves: a stranger's failed guesses no longer lock them out (API_DECISIONS part 4). */
  private async forgetLoginFailures(userId: string): Promise<void> {
    const user = await this.users.findById(userId);
    if (user) await this.loginThrottle.forgetFailures(user.email);
  }

  private async issue(userId: string, resetUrlOf: (token: string) => string): Promise<string> {
    const { token, digest } = newSecretToken();
    await this.resets.create(userId, { tokenDigest: digest, expiresAt: new Date(Date.now() + RESET_LIFETIME_MS) });
    return resetUrlOf(token);
  }
}
