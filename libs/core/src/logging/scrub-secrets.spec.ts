import { scrubSecrets } from './scrub-secrets';

describe(scrubSecrets.name, () => {
  const key = `sk_live_${'A1b2-C3_d4'.repeat(4)}xyz`;
  const embedSecret = 'q9Vx-3_kLmN0pQrStUvWxYz0123456789abcdefghij';

  it.each([
    ['an API key', `key ${key} refused`, 'key sk_live_[redacted] refused', key],
    ['a test API key', 'sk_test_abc-DEF_123.', 'sk_test_[redacted].', 'abc-DEF_123'],
    ['a webhook secret', 'secret whsec_MfKQ9r8G+KYq/rTw= leaked', 'secret whsec_[redacted] leaked', 'MfKQ9r8G'],
    ['a bearer token', `Authorization: Bearer ${embedSecret}, then`, 'Authorization: Bearer [redacted], then', embedSecret],
    [
      'an embed URL',
      `open http://localhost:3001/embed/es_01JD3Z8Q4W6K2M9T5X7B1C0VHE#${embedSecret} now`,
      'open http://localhost:3001/embed/es_01JD3Z8Q4W6K2M9T5X7B1C0VHE#[redacted] now',
      embedSecret,
    ],
    [
      'a password in a URL',
      'connect postgres://scene:hunter2@db.internal:5432/scene_studio failed',
      'connect postgres://scene:[redacted]@db.internal:5432/scene_studio failed',
      'hunter2',
    ],
    ['a password without a user', 'redis://:s3cret@cache:6379', 'redis://:[redacted]@cache:6379', 's3cret'],
  ])('replaces %s', (_, text, expected, secret) => {
    expect(scrubSecrets(text)).toBe(expected);
    expect(scrubSecrets(text)).not.toContain(secret);
  });

  it('leaves everything else as it is', () => {
    const text =
      'TypeError: Cannot read properties of undefined (reading "id")\n    at f (/srv/dist/x.js:1:2) es_01JD3Z8Q4W6K2M9T5X7B1C0VHE https://a.example/p#frag';
    expect(scrubSecrets(text)).toBe(text);
    expect(scrubSecrets(undefined)).toBeUndefined();
  });
});
