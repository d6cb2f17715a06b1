import ipaddr from 'ipaddr.js';

/** Where IANA allocates global unicast IPv6 from; everything else is special or reserved (::/8 among it). */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052): the translator connects to the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * ipaddr.js's name for the range of `address` ('unicast', 'private', 'loopback', 'linkLocal',
 * 'carrierGradeNat', 'uniqueLocal', 'reserved', …), null when it is no address. An IPv6 address
 * that leads to an IPv4 one is judged by where a connection to it ends up:
 * - IPv4-mapped (`::ffff:0:0/96`) and NAT64 with the well-known prefix (`64:ff9b::/96`) as the
 *   IPv4 address they carry ('rfc6052' for a NAT64 one whose IPv4 address is not unicast);
 * - IPv4-compatible (`::/96`, deprecated) is 'reserved' like the rest of IPv6 outside
 *   `2000::/3`; the local-use NAT64 prefix (`64:ff9b:1::/48`, whose translators place the IPv4
 *   address as each network chooses), 6to4 (`2002::/16`), Teredo (`2001::/32`) and IPv4-translated
 *   (`::ffff:0:0:0/96`) keep ipaddr.js's names for them, never 'unicast', whatever they carry;
 * - an ISATAP interface id (`…:0:5efe:a.b.c.d`, RFC 5214) carrying an IPv4 address that is not
 *   unicast is 'isatap': on an ISATAP link the IPv6 packet is sent to that IPv4 address directly.
 */
export function addressRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipv4Compatible(address) ?? ipaddr.parse(address);
  return parsed.kind() === 'ipv6' ? ipv6Range(parsed as ipaddr.IPv6) : parsed.range();
}

/**
 * `::a.b.c.d` as the IPv4-compatible address it is: ipaddr.js reads that spelling as IPv4-mapped
 * (`::ffff:a.b.c.d`), and inet_ntop (so c-ares) writes `::/96` addresses so.
 */
function ipv4Compatible(address: string): ipaddr.IPv6 | null {
  const dotted = /^::(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (!dotted || !ipaddr.IPv4.isValidFourPartDecimal(dotted)) return null;
  const [a, b, c, d] = ipaddr.IPv4.parse(dotted).octets;
  return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, (a << 8) | b, (c << 8) | d]);
}

function ipv6Range(address: ipaddr.IPv6): string {
  const range = address.range();
  if (range === 'ipv4Mapped') return address.toIPv4Address().range();
  if (address.match(NAT64_WELL_KNOWN)) return lastIPv4(address).range() === 'unicast' ? 'unicast' : range;
  if (range !== 'unicast') return range;
  if (!address.match(GLOBAL_UNICAST)) return 'reserved';
  if (isIsatap(address) && lastIPv4(address).range() !== 'unicast') return 'isatap';
  return 'unicast';
}

/** The IPv4 address in the last 32 bits. */
function lastIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  return ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4;
}

/** An interface id of ISATAP's shape: 0000:5efe, or 0200:5efe with the universal bit, (and the group bit) before the IPv4 address. */
function isIsatap(address: ipaddr.IPv6): boolean {
  return (address.parts[4] & 0xfcff) === 0 && address.parts[5] === 0x5efe;
}

/**
 * Whether a connection the service makes for someone else (a webhook, a file a provider hands
 * back) may go to `address`: only global unicast, by `addressRange`'s judgement. ipaddr.js names
 * every special range (private, loopback, link-local — where cloud metadata services live —,
 * carrier-grade NAT, multicast, reserved, unique-local, 6to4/Teredo tunnels…), and an IPv6 form
 * that embeds an IPv4 address is judged by where it leads, so anything not called unicast is
 * refused.
 */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

export function isLoopbackAddress(address: string): boolean {
  return addressRange(address) === 'loopback';
}
