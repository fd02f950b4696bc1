import { isIPv4 } from 'node:net';

/** A socket address on this machine: 127.0.0.0/8 (also IPv4-mapped) or ::1. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return address === '::1' || (isIPv4(v4) && v4.startsWith('127.'));
}

/**
 * A Host header naming this machine: `localhost` (or a name under `.localhost`, which browsers
 * resolve to loopback themselves), a 127.0.0.0/8 address or [::1], with any port. Parsed as a URL
 * host, so spellings such as `127.1` or upper case count as what a browser would make of them.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  // Only host[:port] characters: a path or credentials would let the URL parser pick another host.
  if (!host || !/^[A-Za-z0-9.\-[\]:]+$/.test(host) || !URL.canParse(`http://${host}`)) return false;
  const name = new URL(`http://${host}`).hostname;
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || isLoopbackAddress(name);
}
