import { errors, jwtVerify } from 'jose';
import { isEmail } from 'class-validator';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-codes';
import type { VisitorIdentity } from '../conversations/visitors/visitors.repository';

/** API_DECISIONS part 4: an identity token lives at most 24 hours (`exp` - `iat`). */
export const IDENTITY_TOKEN_MAX_LIFETIME_S = 24 * 60 * 60;
/** `sub` and `name`: 1..200 characters (code points). */
const MAX_CLAIM_LENGTH = 200;
/** Beyond any real token: refused before its signature is computed. */
const MAX_TOKEN_LENGTH = 4096;

const invalid = (why: string) => new AppError(ErrorCode.INVALID_IDENTITY_TOKEN, `The identity token is invalid: ${why}.`);

/**
 * Checks an identity token the tenant's back end signed (docs/known-visitors.md) and answers who it
 * names. HS256 only, with the tenant's identity secret (the whole `idsec_...` string as UTF-8):
 * any other `alg`, `none` included, is refused before a key is used, so no token can choose how it
 * is checked. `sub`, `iat` and `exp` are required; `exp` in the future and at most 24 hours after
 * `iat`; `iat` not in the future. Every failure is 401 INVALID_IDENTITY_TOKEN.
 */
export async function verifyIdentityToken(token: string, secret: string | null, now: Date): Promise<VisitorIdentity> {
  if (secret === null) throw invalid('the tenant has no identity secret configured');
  if (token.length > MAX_TOKEN_LENGTH) throw invalid('it is too long');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      requiredClaims: ['sub', 'iat', 'exp'],
      maxTokenAge: IDENTITY_TOKEN_MAX_LIFETIME_S,
      currentDate: now,
    }));
  } catch (error) {
    throw invalid(reasonOf(error));
  }
  const { sub, iat, exp, email, name } = payload;
  if (typeof sub !== 'string' || !withinLength(sub)) throw invalid(`sub must be a string of 1 to ${MAX_CLAIM_LENGTH} characters`);
  if ((exp as number) - (iat as number) > IDENTITY_TOKEN_MAX_LIFETIME_S) throw invalid('exp must be at most 24 hours after iat');
  if (email !== undefined && email !== null && (typeof email !== 'string' || email.length > 254 || !isEmail(email))) {
    throw invalid('email must be a valid e-mail address');
  }
  if (name !== undefined && name !== null && (typeof name !== 'string' || !withinLength(name))) {
    throw invalid(`name must be a string of 1 to ${MAX_CLAIM_LENGTH} characters`);
  }
  return { externalId: sub, email: email ?? undefined, name: name ?? undefined };
}

const withinLength = (value: string): boolean => value.length > 0 && [...value].length <= MAX_CLAIM_LENGTH;

/** What the tenant's developer needs to fix the token; never the secret or the expected signature. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'it has expired (exp)';
  if (error instanceof errors.JWTClaimValidationFailed) return `the ${error.claim} claim ${error.reason === 'missing' ? 'is missing' : 'is not valid'}`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'it must be signed with HS256';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not match the identity secret';
  return 'it is not a signed JWT';
}
