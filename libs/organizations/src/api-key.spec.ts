import { displayPrefix, formatApiKey, hashApiKey, isWellFormedApiKey } from './api-key';

describe('API keys', () => {
  const random = Buffer.alloc(32, 7);

  it('formats test and live keys with 43 base64url characters', () => {
    expect(formatApiKey('test', random)).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(formatApiKey('live', random)).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(() => formatApiKey('test', Buffer.alloc(16))).toThrow();
  });

  it('recognises well-formed keys only', () => {
    expect(isWellFormedApiKey(formatApiKey('test', random))).toBe(true);
    expect(isWellFormedApiKey(`sk_prod_${'a'.repeat(43)}`)).toBe(false);
    expect(isWellFormedApiKey(`sk_test_${'a'.repeat(44)}`)).toBe(false);
    expect(isWellFormedApiKey(`sk_test_${'a'.repeat(42)}=`)).toBe(false);
  });

  it('hashes with SHA-256 hex and shows only a short prefix', () => {
    const key = formatApiKey('live', random);
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(8));
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });
});
