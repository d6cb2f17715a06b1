import { retryAfterSeconds } from './studio-api.client';

describe(retryAfterSeconds.name, () => {
  const now = Date.parse('2026-11-27T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 5 ', now)).toBe(5);
  });

  it('reads an HTTP date as the seconds until it, never negative', () => {
    expect(retryAfterSeconds('Fri, 27 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('is null when absent or unreadable', () => {
    expect(retryAfterSeconds(null, now)).toBeNull();
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds('-3', now)).toBeNull();
  });
});
