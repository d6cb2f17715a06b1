import { sha256Hex } from '@app/core';

export type KeyEnvironment = 'test' | 'live';

/** `sk_test_` or `sk_live_` followed by 32 random bytes in base64url (43 characters). */
const KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9_-]{43}$/;

export function formatApiKey(environment: KeyEnvironment, random: Buffer): string {
  if (random.length !== 32) throw new Error('an API key needs 32 random bytes');
  return `sk_${environment}_${random.toString('base64url')}`;
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/** Keys carry 256 random bits, so a fast unsalted hash is enough to make the stored value useless. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function displayPrefix(key: string): string {
  return key.slice(0, 'sk_test_'.length + 4);
}
