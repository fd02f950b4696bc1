import { ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';

/** An IANA name: `Area/Location` (`America/Argentina/Buenos_Aires`, `Etc/GMT+2`) or `UTC`; no offsets. */
const IANA_NAME = /^(?:UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+)$/;

/**
 * The time zone as stored: an IANA name ICU knows (current names and their aliases, e.g.
 * `Asia/Kolkata` and `Asia/Calcutta`), its letter case corrected (`europe/berlin`:
 * `Europe/Berlin`); undefined when it is not one. `Intl.supportedValuesOf` cannot decide this: it
 * lists one name per zone, on Node 20 often the old one.
 */
export function normaliseTimeZone(value: unknown): string | undefined {
  if (typeof value !== 'string' || !IANA_NAME.test(value)) return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
  } catch {
    return undefined;
  }
}

@ValidatorConstraint({ name: 'timeZone' })
export class IsTimeZoneName implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && normaliseTimeZone(value) === value;
  }

  defaultMessage(): string {
    return 'must be an IANA time zone name such as Europe/Berlin or UTC';
  }
}

/**
 * A web origin the widget may be embedded on, as a browser sends it in `Origin`: `https://host` with
 * an optional port, nothing after it (a trailing `/` is tolerated and dropped). `http://` only for
 * `localhost` and `127.0.0.1`, so that a tenant can try the widget on a development machine.
 * Wildcards are not origins: every host is listed.
 */
export function normaliseOrigin(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048 || value.includes('*') || /\s/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return undefined;
  if (url.username || url.password || url.search || url.hash || value.endsWith('?') || value.endsWith('#') || url.pathname !== '/') return undefined;
  return url.origin;
}

/** Every entry is an origin as normaliseOrigin writes it (the DTO normalises before validating). */
@ValidatorConstraint({ name: 'originList' })
export class IsOriginList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return Array.isArray(value) && value.every((origin) => typeof origin === 'string' && normaliseOrigin(origin) === origin);
  }

  defaultMessage(): string {
    return 'each entry must be an origin such as https://www.example.com (no path, no wildcard)';
  }
}
