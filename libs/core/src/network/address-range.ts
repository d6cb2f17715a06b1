import ipaddr from 'ipaddr.js';

/**
 * ipaddr.js's name for the range of `address` ('unicast', 'private', 'loopback', 'linkLocal',
 * 'carrierGradeNat', 'uniqueLocal', 'reserved', …), IPv4-mapped IPv6 judged as the IPv4 address
 * it carries; null when it is no address.
 */
export function addressRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().range();
  return parsed.range();
}

/**
 * Whether a connection the service makes for someone else (a webhook, a file a provider hands
 * back) may go to `address`: only global unicast. ipaddr.js names every special range (private,
 * loopback, link-local — where cloud metadata services live —, carrier-grade NAT, multicast,
 * reserved, unique-local, 6to4/Teredo tunnels…), so anything it does not call unicast is refused.
 */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

export function isLoopbackAddress(address: string): boolean {
  return addressRange(address) === 'loopback';
}
