// Known visitors in the widget section: a widget session with an identity token against one
// without, and the token's verification alone (in process), to give its share of the session's CPU.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { SignJWT } from 'jose';
import { withDatabase } from './seed.mjs';

const require = createRequire(import.meta.url);
const { verifyIdentityToken } = require('../dist/widget/identity-token.js');

/** Distinct users the identified sessions cycle through: a session upserts its user's Visitor row, and one row for all would measure its lock. */
const USERS = 1000;

/** The widget tenant's identity secret, set as POST /api/v1/identity-secret sets one; the secret. */
export async function seedIdentitySecret(url, tenantId) {
  const secret = `idsec_${randomBytes(32).toString('base64url')}`;
  await withDatabase(url, (db) => db.query(`UPDATE "Tenant" SET "identitySecret" = $2, "identityRequired" = false WHERE id = $1`, [tenantId, secret]));
  return secret;
}

/** A token as a tenant's back end signs one (docs/known-visitors.md): an hour, with e-mail and name. */
function signToken(secret, user) {
  return new SignJWT({ email: `user-${user}@example.com`, name: `User ${user}` })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(`bench-user-${user}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/** The two session scenarios as run.mjs measures them: anonymous, and identified (USERS users in turn). */
export async function sessionScenarios({ botId, publicKey }, secret) {
  const tokens = await Promise.all(Array.from({ length: USERS }, (_, user) => signToken(secret, user)));
  let next = 0;
  const session = { path: '/api/v1/widget/sessions', method: 'POST', key: publicKey };
  return {
    anonymous: { ...session, name: 'widget session, anonymous', body: { botId } },
    identified: {
      ...session,
      name: 'widget session with an identity token',
      body: { botId, identityToken: tokens[0] },
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ botId, identityToken: tokens[next++ % USERS] }) }),
    },
    token: tokens[0],
  };
}

/** CPU microseconds of one verification (verifyIdentityToken, as the session runs it), over `rounds` in a row. */
export async function verificationCpuUs(secret, token, rounds = 20_000) {
  for (let i = 0; i < 1000; i++) await verifyIdentityToken(token, secret, new Date());
  const before = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await verifyIdentityToken(token, secret, new Date());
  const { user, system } = process.cpuUsage(before);
  return +((user + system) / rounds).toFixed(1);
}
