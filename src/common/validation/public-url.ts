import { BlockList, isIP } from 'node:net';
import { registerDecorator, type ValidationOptions } from 'class-validator';

/**
 * Addresses that are not the public internet: this host, private networks, link-local (cloud
 * metadata at 169.254.169.254 included), carrier-grade NAT, benchmarking, multicast and reserved
 * ranges, and IPv6 addresses that embed an IPv4 one.
 */
const NON_PUBLIC_RANGES: ReadonlyArray<readonly [network: string, prefix: number, type: 'ipv4' | 'ipv6']> = [
  ...(
    [
      ['0.0.0.0', 8],
      ['10.0.0.0', 8],
      ['100.64.0.0', 10],
      ['127.0.0.0', 8],
      ['169.254.0.0', 16],
      ['172.16.0.0', 12],
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.168.0.0', 16],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['224.0.0.0', 4],
      ['240.0.0.0', 4],
    ] as const
  ).map(([network, prefix]) => [network, prefix, 'ipv4'] as const),
  ...(
    [
      ['::', 128],
      ['::1', 128],
      ['64:ff9b::', 96],
      ['100::', 64],
      ['2001:db8::', 32],
      ['fc00::', 7],
      ['fe80::', 10],
      ['ff00::', 8],
    ] as const
  ).map(([network, prefix]) => [network, prefix, 'ipv6'] as const),
];
const NON_PUBLIC = blockListOf(NON_PUBLIC_RANGES);
/** Each non-public range alone, to tell whether one of them contains a whole range. */
const EACH_NON_PUBLIC = NON_PUBLIC_RANGES.map((range) => ({ prefix: range[1], type: range[2], list: blockListOf([range]) }));

function blockListOf(ranges: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

/**
 * Whether a CIDR range (`10.0.0.0/8`; a bare address is a range of one) holds any public internet
 * address: false only when one non-public range contains all of it. Not a range: false.
 */
export function coversPublicAddresses(cidr: string): boolean {
  const [address, prefixText, ...rest] = cidr.trim().split('/');
  const family = isIP(address);
  if (family === 0 || rest.length || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const prefix = prefixText === undefined ? (family === 4 ? 32 : 128) : Number(prefixText);
  // A range inside a non-public one has a prefix at least as long and its address in it.
  return !EACH_NON_PUBLIC.some((range) => range.type === type && prefix >= range.prefix && range.list.check(address, type));
}
/**
 * IPv6 forms that carry an IPv4 address, refused whole whatever address they carry: IPv4-compatible
 * (::/96, so [::127.0.0.1] too, and ::), IPv4-mapped (::ffff:0:0/96, however written),
 * IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), Teredo (2001::/32) and
 * 6to4 (2002::/16). A list of their own, checked for IPv6 addresses only: BlockList matches IPv4
 * addresses against IPv6 rules such as ::ffff:0:0/96 too.
 */
const EMBEDS_IPV4 = new BlockList();
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2002::', 16],
] as const) {
  EMBEDS_IPV4.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6) is on the public internet. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && EMBEDS_IPV4.check(address, 'ipv6')) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why a URL is not a public https URL, or undefined when it is: https, no user or password, and a
 * host that is a name other than localhost or a public IP address. Names are not resolved here;
 * whoever fetches the URL must check the address it connects to.
 */
export function publicHttpsUrlProblem(value: string): string | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || url.protocol !== 'https:') return 'must be an https URL';
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point to localhost';
  if (isIP(host) && !isPublicAddress(host)) return 'must not point to a private, loopback, link-local or reserved address';
  return undefined;
}

/** A public https URL (publicHttpsUrlProblem); the message names the rule broken, never the value. */
export function IsPublicHttpsUrl(options: ValidationOptions = {}): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPublicHttpsUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && publicHttpsUrlProblem(value) === undefined,
        defaultMessage: (args) => (typeof args?.value === 'string' ? (publicHttpsUrlProblem(args.value) ?? 'must be an https URL') : 'must be an https URL'),
      },
    });
}
