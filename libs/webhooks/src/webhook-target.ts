import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Why a target URL or address is refused; shown to the partner as a field error's message. */
export class TargetRefused extends Error {}

export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * Whether a delivery may go to `address`: only global unicast. ipaddr.js names every special
 * range (private, loopback, link-local — where cloud metadata services live —, carrier-grade NAT,
 * multicast, reserved, unique-local, 6to4/Teredo tunnels…); IPv4-mapped IPv6 is judged as IPv4.
 */
export function isPublicAddress(address: string): boolean {
  return rangeOf(address) === 'unicast';
}

/** ipaddr.js's name for the range of `address` (IPv4-mapped IPv6 judged as IPv4); null when it is no address. */
function rangeOf(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().range();
  return parsed.range();
}

/** The one shape of local target a test organization may use: http://localhost:<port>. */
export function isLocalhostTarget(url: URL): boolean {
  return url.protocol === 'http:' && url.hostname === 'localhost' && url.port !== '';
}

/**
 * The shape rules of an endpoint URL, before any DNS: absolute http(s) URL without credentials
 * or fragment; `https:` unless it is a test organization's http://localhost:<port>.
 */
export function parseTargetUrl(raw: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('url must be an absolute https:// URL');
  }
  if (url.username || url.password) throw new TargetRefused('url must not contain credentials');
  if (url.hash) throw new TargetRefused('url must not contain a fragment');
  if (allowLoopback && isLocalhostTarget(url)) return url;
  if (url.protocol !== 'https:') {
    throw new TargetRefused(
      allowLoopback ? 'url must be https:// on a public host, or http://localhost:<port>' : 'url must be https:// on a public host',
    );
  }
  return url;
}

/**
 * Resolves the URL's host and returns the addresses a delivery may connect to. Every address
 * must be public (a name with one private address among public ones is refused as a whole, since
 * the connection could land on it); a test organization's http://localhost:<port> may resolve to
 * loopback only. Run at creation and again before each delivery, which then connects to exactly
 * the address checked here: a DNS answer that changes in between (rebinding) gains nothing.
 */
export async function resolveTarget(url: URL, allowLoopback: boolean, lookup: Lookup = systemLookup): Promise<string[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const local = allowLoopback && isLocalhostTarget(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host)).map((a) => a.address);
    } catch {
      throw new TargetRefused('url host does not resolve');
    }
  }
  if (addresses.length === 0) throw new TargetRefused('url host does not resolve');
  const allowed = local ? addresses.every((a) => rangeOf(a) === 'loopback') : addresses.every(isPublicAddress);
  if (!allowed) throw new TargetRefused('url must point to a public address (not private, loopback, link-local or metadata)');
  return addresses;
}
