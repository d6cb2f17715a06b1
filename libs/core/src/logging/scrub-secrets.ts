/**
 * Secrets by their shape, for text the redaction paths cannot reach: an error's message and
 * stack. A programming error's message is what diagnoses it, so it is logged; but code may have
 * put a key, a bearer token or a URL with a password into it. Only what can be recognised is
 * caught: an embed secret alone (bare base64url) is caught after `Bearer` and in an embed URL's
 * fragment, where it travels.
 */
const SECRET_SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  // API keys: sk_test_… and sk_live_…
  [/\b(sk_(?:test|live)_)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  // Webhook signing secrets (Standard Webhooks).
  [/\b(whsec_)[A-Za-z0-9+/=]+/g, '$1[redacted]'],
  // Any bearer token: API keys, embed secrets, providers' keys.
  [/\b(Bearer\s+)[^\s"',;]+/gi, '$1[redacted]'],
  // An embed URL's fragment is its secret.
  [/(\/embed\/[A-Za-z0-9_]+)#[^\s"'<>]+/g, '$1#[redacted]'],
  // The password in a URL's user information (DATABASE_URL, REDIS_URL).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]+@/gi, '$1:[redacted]@'],
];

export function scrubSecrets(text: string): string;
export function scrubSecrets(text: string | undefined): string | undefined;
export function scrubSecrets(text: string | undefined): string | undefined {
  if (typeof text !== 'string') return text;
  let out = text;
  for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
  return out;
}
