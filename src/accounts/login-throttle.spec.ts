import { AppError } from '../common/errors/app-error';
import type { AppConfig } from '../config/env';
import { FailedAuthLimiter } from '../rate-limit/failed-auth.limiter';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store';
import { LoginThrottle } from './login-throttle';

const EMAIL = 'Ada@Example.test';
const wrong = async () => undefined;
const right = async () => 'user';

function throttleAt(clock: () => number, perIpPerMinute = 1_000) {
  const store = new MemoryRateLimitStore(clock);
  const config = { rateLimit: { multiplier: 1 } } as AppConfig;
  return new LoginThrottle(store, new FailedAuthLimiter(store, { limit: perIpPerMinute, ttlMs: 60_000 }), config);
}

async function refusal(run: () => Promise<unknown>): Promise<AppError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected 429');
}

/** 100 wrong passwords for the e-mail from 10 addresses (10 each: the per-address limit). */
async function useUpTheEmail(throttle: LoginThrottle, email = EMAIL): Promise<void> {
  for (let address = 0; address < 10; address++) {
    for (let i = 0; i < 10; i++) expect(await throttle.attempt(email, `198.51.100.${address}`, false, wrong)).toBeUndefined();
  }
}

describe('LoginThrottle', () => {
  it('keeps the per-e-mail limit over the last hour across a clock hour: failures at 10:50 still refuse at 11:10', async () => {
    let now = Date.parse('2026-01-01T10:50:00Z');
    const throttle = throttleAt(() => now);
    await useUpTheEmail(throttle);
    now = Date.parse('2026-01-01T11:10:00Z');
    const refused = await refusal(() => throttle.attempt(EMAIL, '192.0.2.1', false, right));
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('for this e-mail') });
    expect(Number(refused.headers['Retry-After'])).toBe(40 * 60);
    now = Date.parse('2026-01-01T11:50:00.001Z');
    expect(await throttle.attempt(EMAIL, '192.0.2.1', false, right)).toBe('user');
  });

  it('spares a trusted device the per-e-mail limit, not the per-address ones', async () => {
    const throttle = throttleAt(() => 1_000_000);
    await useUpTheEmail(throttle);
    expect(await throttle.attempt(EMAIL.toLowerCase(), '192.0.2.1', true, right)).toBe('user');
    for (let i = 0; i < 10; i++) await throttle.attempt(EMAIL, '192.0.2.2', true, wrong);
    expect(await refusal(() => throttle.attempt(EMAIL, '192.0.2.2', true, right))).toMatchObject({
      status: 429,
      message: expect.stringContaining('from this address for this e-mail'),
    });
  });

  it('forgets the e-mail’s failures (a completed reset), in any case and spacing of the e-mail', async () => {
    const throttle = throttleAt(() => 1_000_000);
    await useUpTheEmail(throttle);
    await throttle.forgetFailures(` ${EMAIL.toUpperCase()} `);
    expect(await throttle.attempt(EMAIL, '192.0.2.1', false, right)).toBe('user');
    expect(await throttle.attempt(EMAIL, '198.51.100.0', false, right)).toBe('user');
  });

  it('counts a guess before the comparison: a concurrent burst gets no more comparisons than the address budget', async () => {
    const throttle = throttleAt(() => 1_000_000, 5);
    let compared = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slowWrong = async () => {
      compared++;
      await gate;
      return undefined;
    };
    const burst = Array.from({ length: 15 }, (_, i) => throttle.attempt(`user${i}@example.test`, '203.0.113.5', false, slowWrong).catch((error) => error));
    await new Promise((resolve) => setImmediate(resolve));
    const rightOne = throttle.attempt(EMAIL, '203.0.113.5', false, right).catch((error) => error);
    open();
    const answers = await Promise.all(burst);
    expect(compared).toBe(5);
    expect(answers.filter((answer) => answer instanceof AppError && answer.status === 429)).toHaveLength(10);
    expect(await rightOne).toMatchObject({ status: 429 });
  });

  it('gives the guess back when the check fails for another reason than a wrong password', async () => {
    const throttle = throttleAt(() => 1_000_000, 1);
    const broken = async () => {
      throw new Error('database down');
    };
    await expect(throttle.attempt(EMAIL, '203.0.113.6', false, broken)).rejects.toThrow('database down');
    expect(await throttle.attempt(EMAIL, '203.0.113.6', false, right)).toBe('user');
  });
});
