import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * The client address the per-IP limits count under: Express's `req.ip`, proxy-aware per
 * TRUST_PROXY. An IPv6 address counts by its /64 network (API_DECISIONS part 3, Fixes to part 2):
 * one subscriber usually holds a whole /64, so counting single addresses would let it take 2^64
 * fresh quotas. IPv4 (also written IPv4-mapped, `::ffff:1.2.3.4`) counts by the address.
 */
export function clientIp(request: Request): string {
  return limitKeyOf(request.ip ?? request.socket.remoteAddress ?? 'unknown');
}

/** The caller's address as the per-IP limits count it (clientIp). */
export const ClientIp = createParamDecorator((_: unknown, context: ExecutionContext): string => clientIp(context.switchToHttp().getRequest<Request>()));

/** `2001:db8:1:2::/64` for any address of that network; IPv4 and anything unparsable as given. */
export function limitKeyOf(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1];
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, as lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const parse = (part: string | undefined): string[] => (part ? part.split(':').flatMap(expandIpv4) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => parseInt(group, 16).toString(16));
}

/** An embedded IPv4 tail (`::1.2.3.4`) as its two hex groups; a hex group as itself. */
function expandIpv4(group: string): string[] {
  if (!group.includes('.')) return [group];
  const [a, b, c, d] = group.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
