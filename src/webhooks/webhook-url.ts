import { BlockList, isIP } from 'node:net';
import { isPublicAddress } from '../common/validation/public-url';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The ranges of WEBHOOK_ALLOWED_CIDRS, compiled once. */
export function allowedRanges(cidrs: readonly string[]): BlockList {
  const ranges = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    ranges.addSubnet(address, Number(prefix), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return ranges;
}

function isAllowed(address: string, ranges: BlockList): boolean {
  const family = isIP(address);
  return family !== 0 && ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Whether a webhook may reach this address: a public one, or one in WEBHOOK_ALLOWED_CIDRS. The one
 * rule of both checks, the URL's literal address at creation and the address connected to at send.
 */
export function isDeliverableAddress(address: string, ranges: BlockList): boolean {
  return isAllowed(address, ranges) || isPublicAddress(address);
}

export const ADDRESS_REFUSED =
  'must not point to a private, loopback, link-local or reserved address (WEBHOOK_ALLOWED_CIDRS can allow a range, e.g. 127.0.0.1/32 for a local receiver)';

/**
 * Why a webhook URL is refused, or undefined when it is acceptable (API_DECISIONS, Webhooks):
 * absolute, no user or password, https; a host that is a literal address must be public, unless
 * it lies in WEBHOOK_ALLOWED_CIDRS (then http is allowed too). `localhost` counts as 127.0.0.1 and
 * ::1. Names are not resolved here: the worker checks the address it connects to.
 */
export function webhookUrlProblem(value: string, ranges: BlockList): string | undefined {
  if (value.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  // The URL parser drops CR, LF and tab silently; a URL holding them is refused, never rewritten.
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not contain control characters (such as CR or LF)';
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return 'must be an absolute https URL';
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  const addresses = host === 'localhost' || host.endsWith('.localhost') ? ['127.0.0.1', '::1'] : isIP(host) ? [host] : [];
  const allowed = addresses.length > 0 && addresses.some((address) => isAllowed(address, ranges));
  if (!allowed && addresses.some((address) => !isPublicAddress(address))) return ADDRESS_REFUSED;
  if (url.protocol !== 'https:' && !allowed) return 'must be an absolute https URL';
  return undefined;
}
