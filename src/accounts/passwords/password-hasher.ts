import { Injectable } from '@nestjs/common';
import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-codes';

/**
 * argon2id at OWASP's minimum (Password Storage Cheat Sheet: m=19 MiB, t=2, p=1). Each hash holds
 * 19 MiB for ~50 ms on libuv's pool, so at most MAX_CONCURRENT run at once and at most MAX_WAITING
 * wait: a log-in flood costs a bounded 19 MiB x MAX_CONCURRENT, and past the queue it is told to
 * retry (503) instead of piling up memory and latency.
 */
// algorithm 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
export const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const MAX_CONCURRENT = 2;
const MAX_WAITING = 64;

@Injectable()
export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  // Compared against when the e-mail is unknown, so that an unknown e-mail takes a wrong password's time.
  private readonly decoy = hash('decoy password, never matched', ARGON2_OPTIONS);

  hash(password: string): Promise<string> {
    return this.bounded(() => hash(password, ARGON2_OPTIONS));
  }

  /** Whether `password` matches `stored`; without a stored hash, the same work against a decoy, then false. */
  async verify(stored: string | undefined, password: string): Promise<boolean> {
    const target = stored ?? (await this.decoy);
    const matches = await this.bounded(() => verify(target, password).catch(() => false));
    return stored !== undefined && matches;
  }

  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= MAX_CONCURRENT) {
      if (this.waiting.length >= MAX_WAITING) {
        throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'Too many sign-ins at once. Retry shortly.', undefined, { 'Retry-After': '1' });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes to the next in line (running stays the same), or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
