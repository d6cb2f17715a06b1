import { RandomSource } from '@app/core';
import { hashEmbedSecret, isWellFormedEmbedSecret, newEmbedSecret } from './embed-secret';

describe('embed secrets', () => {
  const random = new RandomSource();

  it('are 32 random bytes in base64url, different every time', () => {
    const a = newEmbedSecret(random);
    const b = newEmbedSecret(random);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(isWellFormedEmbedSecret(a)).toBe(true);
  });

  it.each(['', 'x', 'A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}+`, `sk_test_${'A'.repeat(43)}`])(
    'refuses %p before any lookup',
    (token) => {
      expect(isWellFormedEmbedSecret(token)).toBe(false);
    },
  );

  it('are stored as their SHA-256 only', () => {
    const secret = newEmbedSecret(random);
    expect(hashEmbedSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashEmbedSecret(secret)).toBe(hashEmbedSecret(secret));
    expect(hashEmbedSecret(secret)).not.toContain(secret);
  });
});
