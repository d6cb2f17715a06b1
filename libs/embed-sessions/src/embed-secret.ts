import { RandomSource, sha256Hex } from '@app/core';

/**
 * An embed session's secret: 32 random bytes in base64url. It travels only in the embed URL's
 * fragment and, from the studio page, as the studio API's bearer token; the database keeps its
 * SHA-256 only, so a leaked table opens no studio.
 */
const SECRET_BYTES = 32;
const SECRET_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function newEmbedSecret(random: RandomSource): string {
  return random.bytes(SECRET_BYTES).toString('base64url');
}

/** Whether a presented token could be a secret at all (checked before any hashing or lookup). */
export function isWellFormedEmbedSecret(token: string): boolean {
  return SECRET_FORMAT.test(token);
}

/** What is stored and looked up instead of the secret. */
export function hashEmbedSecret(secret: string): string {
  return sha256Hex(secret);
}
