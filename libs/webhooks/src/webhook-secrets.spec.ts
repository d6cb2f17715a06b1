import { loadConfig, RandomSource } from '@app/core';
import { newSigningSecret, SecretBox } from './webhook-secrets';

describe('webhook secrets', () => {
  const random = new RandomSource();
  const box = new SecretBox(loadConfig({ NODE_ENV: 'test', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') }, {}), random);

  it('are Standard Webhooks secrets: whsec_ and base64 of 32 random bytes', () => {
    const a = newSigningSecret(random);
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newSigningSecret(random)).not.toBe(a);
  });

  it('seal to a versioned ciphertext that opens back, differently each time', () => {
    const secret = newSigningSecret(random);
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.seal(secret)).not.toBe(sealed);
    expect(box.open(sealed)).toBe(secret);
  });

  it('refuse to open anything tampered with or sealed under another key', () => {
    const sealed = box.seal(newSigningSecret(random));
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    const other = new SecretBox(loadConfig({ NODE_ENV: 'test', WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 2).toString('base64') }, {}), random);
    expect(() => other.open(sealed)).toThrow();
    expect(() => box.open('v2.a.b.c')).toThrow('not a sealed webhook secret');
  });
});
