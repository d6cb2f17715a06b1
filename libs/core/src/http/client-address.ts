import type { Request } from 'express';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The client a per-address limit counts: the request's address as Express sees it (`req.ip`: the
 * socket's peer, or the nearest untrusted address in `X-Forwarded-For` when TRUSTED_PROXIES names
 * the proxies in front), IPv4-mapped IPv6 as IPv4, and IPv6 by its /64 — one host usually holds a
 * whole /64, so counting single IPv6 addresses would let it take a new one per request.
 */
export function clientAddress(req: Request): string {
  return normalizeClientAddress(req.ip ?? req.socket?.remoteAddress ?? '');
}

export function normalizeClientAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped && isIPv4(mapped[1])) return mapped[1];
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return 'unknown';
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros, `::` filled in. */
function expandIPv6(address: string): string[] {
  const bare = address.split('%', 1)[0].toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, null];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  let left = groups(head);
  let right = tail === null ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4 handled above; 64:ff9b::1.2.3.4 here) is two groups.
  const last = (tail === null ? left : right).at(-1);
  if (last && isIPv4(last)) {
    const [a, b, c, d] = last.split('.').map(Number);
    const v4 = [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    if (tail === null) left = [...left.slice(0, -1), ...v4];
    else right = [...right.slice(0, -1), ...v4];
  }
  const fill = tail === null ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16).toString(16));
}
