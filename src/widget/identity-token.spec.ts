import { SignJWT } from 'jose';
import { AppError } from '../common/errors/app-error';
import { verifyIdentityToken } from './identity-token';

const SECRET = 'idsec_unit-test-secret-0123456789abcdefghijklmnopq';
const NOW = new Date('2026-11-28T12:00:00Z');
const NOW_S = NOW.getTime() / 1000;

const sign = (claims: Record<string, unknown>, secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

/** The refusal's message, or 'valid'. */
async function outcome(token: string, secret: string | null = SECRET): Promise<string> {
  try {
    await verifyIdentityToken(token, secret, NOW);
    return 'valid';
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_IDENTITY_TOKEN');
    return (error as AppError).message;
  }
}

describe('verifyIdentityToken', () => {
  it('answers the user a valid token names, a null e-mail or name as left out', async () => {
    const token = await sign({ sub: 'u-1', iat: NOW_S, exp: NOW_S + 60, email: 'ada@example.com', name: 'Ada' });
    await expect(verifyIdentityToken(token, SECRET, NOW)).resolves.toEqual({ externalId: 'u-1', email: 'ada@example.com', name: 'Ada' });
    const bare = await sign({ sub: 'u-1', iat: NOW_S, exp: NOW_S + 60, email: null, name: null });
    await expect(verifyIdentityToken(bare, SECRET, NOW)).resolves.toEqual({ externalId: 'u-1', email: undefined, name: undefined });
  });

  it('says what is wrong, never more', async () => {
    const valid = { sub: 'u-1', iat: NOW_S, exp: NOW_S + 60 };
    expect(await outcome(await sign(valid), null)).toMatch(/no identity secret/);
    expect(await outcome(await sign(valid, `${SECRET}x`))).toMatch(/signature does not match/);
    expect(await outcome(await sign({ ...valid, exp: NOW_S - 1 }))).toMatch(/expired/);
    expect(await outcome(await sign({ sub: 'u-1', iat: NOW_S }))).toMatch(/exp claim is missing/);
    expect(await outcome(await sign({ ...valid, exp: NOW_S + 86_401 }))).toMatch(/at most 24 hours after iat/);
    expect(await outcome(await sign({ ...valid, exp: NOW_S + 86_400 }))).toBe('valid');
    expect(await outcome(await sign({ ...valid, iat: NOW_S + 120, exp: NOW_S + 180 }))).toMatch(/iat claim/);
    expect(await outcome(await sign({ ...valid, sub: 'x'.repeat(201) }))).toMatch(/sub must be/);
    expect(await outcome(await sign({ ...valid, sub: '😀'.repeat(200) }))).toBe('valid');
    expect(await outcome(await sign({ ...valid, name: '' }))).toMatch(/name must be/);
    expect(await outcome(await sign({ ...valid, email: 'ada' }))).toMatch(/email must be/);
    expect(await outcome('a.b.c')).toMatch(/not a signed JWT/);
  });
});
