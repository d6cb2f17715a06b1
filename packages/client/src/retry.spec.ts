import { backoffMs, DEFAULT_RETRY_POLICY, isNetworkError, parseRetryAfter } from './retry';

describe(parseRetryAfter.name, () => {
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-25T03:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 25 Nov 2026 03:00:09 GMT', now)).toBe(9);
    expect(parseRetryAfter('Wed, 25 Nov 2026 02:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-3', now)).toBeNull();
  });
});

describe(backoffMs.name, () => {
  it('waits what Retry-After says, capped by the policy', () => {
    expect(backoffMs(DEFAULT_RETRY_POLICY, 1, 3)).toBe(3000);
    expect(backoffMs({ ...DEFAULT_RETRY_POLICY, maxDelayMs: 2000 }, 1, 3)).toBe(2000);
  });

  it('without Retry-After, draws from a doubling ceiling (full jitter)', () => {
    const top = () => 1;
    expect([1, 2, 3, 4].map((n) => backoffMs(DEFAULT_RETRY_POLICY, n, null, top))).toEqual([250, 500, 1000, 2000]);
    expect(backoffMs(DEFAULT_RETRY_POLICY, 30, null, top)).toBe(DEFAULT_RETRY_POLICY.maxDelayMs);
    expect(backoffMs(DEFAULT_RETRY_POLICY, 3, null, () => 0)).toBe(0);
  });
});

describe(isNetworkError.name, () => {
  it('is a failed connection, not an abort or a mistake that no retry fixes', async () => {
    const refused = await fetch('http://127.0.0.1:1/').catch((e: unknown) => e);
    expect(isNetworkError(refused)).toBe(true);
    const aborted = await fetch('http://127.0.0.1:1/', { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isNetworkError(aborted)).toBe(false);
    const badUrl = await fetch('not a url').catch((e: unknown) => e);
    expect(isNetworkError(badUrl)).toBe(false);
  });
});
