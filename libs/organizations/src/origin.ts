/**
 * The serialized form of an origin (what `new URL(x).origin` prints), or null when `input` is
 * anything else: a path, a query, a fragment, a trailing slash, credentials, upper case, a
 * default port written out, or an opaque origin. Comparing origins is then plain string equality.
 */
export function exactOrigin(input: unknown): string | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return url.origin === input ? input : null;
}

/** `http://localhost:<port>` exactly, with an explicit port. */
export function isLocalhostOrigin(origin: string): boolean {
  return /^http:\/\/localhost:[1-9][0-9]{0,4}$/.test(origin) && Number(origin.split(':')[2]) <= 65535;
}

export function isHttpsOrigin(origin: string): boolean {
  return origin.startsWith('https://');
}
