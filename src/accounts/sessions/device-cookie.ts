import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { emailKeyOf } from '../users/users.repository';
import { cookieAttributes, cookieOf } from './session-cookie';

export const DEVICE_COOKIE = 'svc_device';
export const DEVICE_COOKIE_LIFETIME_MS = 90 * 24 * 3_600_000;

/**
 * `svc_device`: proof that this browser signed in with an e-mail's password before, so that a
 * stranger who uses up the e-mail's failure limit does not lock its owner out of their own
 * browser (API_DECISIONS part 4, Log-in throttling). The value is `<expiry>.<HMAC of the e-mail
 * and the expiry>`: no state on the server, nothing readable in it, and it vouches for that e-mail
 * only. The key is derived from API_KEY_PEPPER (required and checked in production; no second
 * secret to configure); rotating the pepper forgets every device, as it ends every API key.
 */
@Injectable()
export class DeviceCookie {
  private readonly key: Buffer;
  private readonly production: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = createHmac('sha256', config.apiKeyPepper).update('svc_device cookie key v1').digest();
    this.production = config.production;
  }

  /** Sets a fresh cookie for `email` (each sign-in renews its 90 days). */
  set(request: Request, response: Response, email: string, now = Date.now()): void {
    const expiresAt = Math.floor((now + DEVICE_COOKIE_LIFETIME_MS) / 1000);
    response.append(
      'Set-Cookie',
      `${DEVICE_COOKIE}=${expiresAt}.${this.mac(email, expiresAt)}; ${cookieAttributes(request, this.production)}; Max-Age=${DEVICE_COOKIE_LIFETIME_MS / 1000}`,
    );
  }

  /** Whether the request carries an unexpired device cookie issued for `email`. */
  vouchesFor(request: Request, email: string, now = Date.now()): boolean {
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(cookieOf(request, DEVICE_COOKIE) ?? '');
    if (!match || Number(match[1]) * 1000 <= now) return false;
    return timingSafeEqual(Buffer.from(match[2]), Buffer.from(this.mac(email, Number(match[1]))));
  }

  private mac(email: string, expiresAt: number): string {
    return createHmac('sha256', this.key)
      .update(`${expiresAt}.${emailKeyOf(email)}`)
      .digest('base64url');
  }
}
