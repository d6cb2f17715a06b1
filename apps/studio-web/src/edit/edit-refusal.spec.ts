import { StudioApiError } from '../api/studio-api.client';
import { editRefusalMessage, retryWhen } from './edit-refusal';

const refused = (status: number, code: string, retryAfterSeconds: number | null = null) =>
  new StudioApiError(status, code, 'detail from the server', { status, code }, retryAfterSeconds);

describe(editRefusalMessage.name, () => {
  it('says another edit is running (409 edit_in_progress), for edits and reverts alike', () => {
    const expected = 'Another edit of this scene is still running. Wait until it finishes, then try again.';
    expect(editRefusalMessage(refused(409, 'edit_in_progress'), false)).toBe(expected);
    expect(editRefusalMessage(refused(409, 'edit_in_progress'), true)).toBe(expected);
  });

  it('says the studio reached its edit limit (429 rate_limited) and when it may edit again', () => {
    expect(editRefusalMessage(refused(429, 'rate_limited', 1800), false)).toBe(
      'This studio has reached its limit of edits for now. You can edit again in 30 minutes.',
    );
    expect(editRefusalMessage(refused(429, 'rate_limited', 12), true)).toBe(
      'This studio has reached its limit of edits for now. You can edit again in 12 seconds.',
    );
    expect(editRefusalMessage(refused(429, 'rate_limited'), false)).toBe(
      'This studio has reached its limit of edits for now. Try again later.',
    );
  });

  it('says the daily limit is spent (429 quota_exceeded) and when edits come back', () => {
    expect(editRefusalMessage(refused(429, 'quota_exceeded', 5 * 3600 + 100), false)).toBe(
      'The daily limit of edits has been reached. You can edit again in about 5 hours.',
    );
    expect(editRefusalMessage(refused(429, 'quota_exceeded'), false)).toBe(
      'The daily limit of edits has been reached. Try again tomorrow.',
    );
  });

  it('keeps the other refusals as they were', () => {
    expect(editRefusalMessage(refused(409, 'scene_not_ready'), false)).toBe(
      'The scene is not ready yet. Wait until it finishes, then try again.',
    );
    expect(editRefusalMessage(refused(403, 'forbidden'), false)).toBe('Editing is not available in this session.');
    expect(editRefusalMessage(refused(404, 'not_found'), true)).toBe('That version is not available.');
    expect(editRefusalMessage(new StudioApiError(0, 'network_error', 'x'), false)).toMatch(/could not reach the server/);
    expect(editRefusalMessage(refused(409, 'something_new'), false)).toBe('The scene is busy. Try again in a moment.');
    expect(editRefusalMessage(refused(429, 'something_new', 3), false)).toBe('Too many requests. You can edit again in 3 seconds.');
    expect(editRefusalMessage(new Error('boom'), true)).toBe('The revert could not be sent.');
  });
});

describe(retryWhen.name, () => {
  it.each([
    [0, 'in 1 second'],
    [1, 'in 1 second'],
    [59, 'in 59 seconds'],
    [60, 'in 1 minute'],
    [61, 'in 2 minutes'],
    [89 * 60, 'in 89 minutes'],
    [90 * 60, 'in about 2 hours'],
    [23 * 3600 + 1, 'in about 23 hours'],
  ])('%d s → "%s"', (seconds, when) => {
    expect(retryWhen(seconds)).toBe(`You can edit again ${when}.`);
  });

  it('says nothing without a Retry-After', () => {
    expect(retryWhen(null)).toBeNull();
  });
});
