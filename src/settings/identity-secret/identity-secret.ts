import { randomBytes } from 'node:crypto';

export const IDENTITY_SECRET_PREFIX = 'idsec_';

/**
 * A tenant's identity secret: `idsec_` + base64url of 32 random bytes (43 characters). The whole
 * string, as UTF-8, is the HS256 key the tenant's back end signs identity tokens with: every JWT
 * library takes a string key as is (docs/known-visitors.md).
 */
export function generateIdentitySecret(): string {
  return `${IDENTITY_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}
