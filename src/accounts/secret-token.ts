import { createHash, randomBytes } from 'node:crypto';

/**
 * The bearer secrets of the accounts (session cookies, invitation and reset links): 256 random
 * bits, base64url. Only their SHA-256 digest is stored: a leaked table grants nothing, and a
 * token with that much entropy needs no slow hash.
 */
export function newSecretToken(): { token: string; digest: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, digest: digestOf(token) };
}

export function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The shape every such token has; anything else is refused before a lookup. */
export const isWellFormedToken = (token: string | undefined): token is string => token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token);
