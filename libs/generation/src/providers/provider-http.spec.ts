import { errorForStatus, retryAfterMs } from './provider-http';

describe(errorForStatus.name, () => {
  it.each([
    [408, 'provider_unavailable', true],
    [429, 'provider_unavailable', true],
    [500, 'provider_unavailable', true],
    [502, 'provider_unavailable', true],
    [503, 'provider_unavailable', true],
    [402, 'provider_quota_exceeded', false],
    [400, 'provider_rejected', false],
    [401, 'provider_rejected', false],
    [403, 'provider_rejected', false],
    [404, 'provider_rejected', false],
    [422, 'provider_rejected', false],
    [302, 'provider_rejected', false],
  ])('%d → %s (retryable: %s)', (status, code, retryable) => {
    const error = errorForStatus(status);
    expect(error).toMatchObject({ code, retryable });
    // The status is in the cause (for logs), never in the partner-facing message.
    expect(error.message).not.toContain(String(status));
  });

  it('carries the pause a provider asked for', () => {
    expect(errorForStatus(429, 7000).retryAfterMs).toBe(7000);
  });
});

describe(retryAfterMs.name, () => {
  const now = Date.parse('2026-11-24T12:00:00Z');

  it.each([
    ['7', 7000],
    [' 12 ', 12000],
    ['0', 0],
    ['86400', 3_600_000],
    ['Tue, 24 Nov 2026 12:00:30 GMT', 30_000],
    ['Tue, 24 Nov 2026 11:00:00 GMT', 0],
    ['soon', undefined],
    [null, undefined],
  ])('%p → %p ms', (header, expected) => {
    expect(retryAfterMs(header, now)).toBe(expected);
  });
});
