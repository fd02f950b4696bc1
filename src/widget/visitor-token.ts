import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a visitor token binds: the tenant, the bot and the visitor, until it expires. */
export interface VisitorClaims {
  tenantId: string;
  botId: string;
  visitorId: string;
  /** Epoch seconds. */
  expiresAt: number;
}

/** API_DECISIONS, Widget: valid 24 hours. */
export const VISITOR_TOKEN_LIFETIME_S = 24 * 60 * 60;

/** API_DECISIONS part 3: a new session keeps the visitor of a token expired up to 30 days ago. */
export const VISITOR_RENEWAL_WINDOW_S = 30 * 24 * 60 * 60;

/**
 * Visitor tokens: `v1.<base64url claims>.<base64url HMAC-SHA256>` signed with WIDGET_TOKEN_SECRET.
 * Stateless, so any instance checks a token another issued; a forged or altered one fails the
 * signature, compared in constant time. (The format of a JWT without its algorithm choice: one
 * algorithm, one key, nothing for a client to negotiate.)
 */
export class VisitorTokens {
  constructor(private readonly secret: string) {}

  sign(claims: VisitorClaims): string {
    const payload = Buffer.from(JSON.stringify({ t: claims.tenantId, b: claims.botId, v: claims.visitorId, e: claims.expiresAt })).toString('base64url');
    return `v1.${payload}.${this.mac(payload)}`;
  }

  /**
   * The claims of a genuine token unexpired at `nowS`; undefined for anything else. `graceS`
   * accepts a token expired at most that long ago (its signature still checked).
   */
  verify(token: string | undefined, nowS = Math.floor(Date.now() / 1000), graceS = 0): VisitorClaims | undefined {
    if (!token || token.length > 1024) return undefined;
    const [version, payload, signature, ...rest] = token.split('.');
    if (version !== 'v1' || !payload || !signature || rest.length) return undefined;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let raw: { t?: unknown; b?: unknown; v?: unknown; e?: unknown };
    try {
      raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof raw;
    } catch {
      return undefined;
    }
    if (typeof raw.t !== 'string' || typeof raw.b !== 'string' || typeof raw.v !== 'string' || typeof raw.e !== 'number' || raw.e + graceS <= nowS)
      return undefined;
    return { tenantId: raw.t, botId: raw.b, visitorId: raw.v, expiresAt: raw.e };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(`visitor-token.${payload}`).digest('base64url');
  }
}
