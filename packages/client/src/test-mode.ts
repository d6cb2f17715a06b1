/** The public generation error codes a test-mode directive can make an operation fail with. */
export type TestFailureCode =
  'generation_failed' | 'provider_unavailable' | 'provider_timeout' | 'provider_rejected' | 'provider_quota_exceeded';

/** What a test organization's creation or edit should do (docs/api.md, "Testing your integration"). */
export type TestOutcome =
  { succeed: true } | { fail: TestFailureCode } | { cancel: true } | { durationSeconds: number } | { throttleSeconds: number };

/**
 * A prompt (or edit instruction) that makes a test organization's operation end as `outcome`:
 * the directive first, then `text`. With a live key it is an ordinary prompt.
 */
export function testPrompt(outcome: TestOutcome, text = 'A test scene'): string {
  return `${directive(outcome)} ${text}`;
}

function directive(outcome: TestOutcome): string {
  if ('fail' in outcome) return `test:fail:${outcome.fail}`;
  if ('cancel' in outcome) return 'test:cancel';
  if ('durationSeconds' in outcome) return `test:duration:${outcome.durationSeconds}`;
  if ('throttleSeconds' in outcome) return `test:throttle:${outcome.throttleSeconds}`;
  return 'test:succeed';
}
