import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { HashingPool } from './hashing-pool';

/**
 * argon2id at OWASP's minimum (Password Storage Cheat Sheet: m=19 MiB, t=2, p=1). Each hash holds
 * 19 MiB for ~50 ms on libuv's pool, so the work runs in two bounded pools (HashingPool): log-ins
 * have one of their own, and everything else that hashes (sign-ups, resets, invitations, password
 * changes) shares the other. A flood of sign-ups or resets then queues behind its own slot and
 * never delays a log-in (API_DECISIONS part 4, Fixes to part 3); at most 3 hashes run at once
 * (57 MiB), under libuv's 4 threads, so file and DNS work keep a thread.
 */
// algorithm 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
export const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

@Injectable()
export class PasswordHasher {
  private readonly logIns = new HashingPool(2, 64, 'Too many sign-ins at once. Retry shortly.');
  private readonly changes = new HashingPool(1, 64, 'Too many password changes at once. Retry shortly.');
  // Compared against when the e-mail is unknown, so that an unknown e-mail takes a wrong password's time.
  private readonly decoy = hash('decoy password, never matched', ARGON2_OPTIONS);

  /** A new password's hash (sign-up, reset, invitation, change): never from the log-ins' share. */
  hash(password: string): Promise<string> {
    return this.changes.run(() => hash(password, ARGON2_OPTIONS));
  }

  /** A log-in's comparison, from the log-ins' own share; without a stored hash, the same work against a decoy, then false. */
  async verifyLogIn(stored: string | undefined, password: string): Promise<boolean> {
    const target = stored ?? (await this.decoy);
    const matches = await this.logIns.run(() => verify(target, password).catch(() => false));
    return stored !== undefined && matches;
  }

  /** Whether `password` matches `stored` where a signed-in user proves it (a password change): the other share. */
  async verify(stored: string | undefined, password: string): Promise<boolean> {
    return stored !== undefined && (await this.changes.run(() => verify(stored, password).catch(() => false)));
  }
}
