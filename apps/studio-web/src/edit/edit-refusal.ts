import { StudioApiError } from '../api/studio-api.client';

/**
 * What the edit panel says when the server refuses to start an edit or a revert: one sentence the
 * person can act on, with when to try again where the server said (`Retry-After`). The limits
 * behind the codes: docs/embed.md, "The studio's limits".
 */
export function editRefusalMessage(e: unknown, revert: boolean): string {
  if (revert && e instanceof StudioApiError && e.status === 404) return 'That version is not available.';
  if (!(e instanceof StudioApiError)) return revert ? 'The revert could not be sent.' : 'The edit could not be sent.';
  if (e.isNetwork) return 'The studio could not reach the server. Check the connection and try again.';
  const when = retryWhen(e.retryAfterSeconds);
  switch (e.code) {
    case 'scene_not_ready':
      return 'The scene is not ready yet. Wait until it finishes, then try again.';
    case 'edit_in_progress':
      return 'Another edit of this scene is still running. Wait until it finishes, then try again.';
    case 'rate_limited':
      return `This studio has reached its limit of edits for now. ${when ?? 'Try again later.'}`;
    case 'quota_exceeded':
      return `The daily limit of edits has been reached. ${when ?? 'Try again tomorrow.'}`;
    case 'forbidden':
      return 'Editing is not available in this session.';
    case 'validation_failed': {
      const field = (e.problem as { errors?: { message?: string }[] } | null)?.errors?.[0]?.message;
      return field ?? e.problem?.detail ?? 'The instruction was not accepted.';
    }
    default:
      if (e.status === 403) return 'Editing is not available in this session.';
      if (e.status === 409) return 'The scene is busy. Try again in a moment.';
      if (e.status === 429) return `Too many requests. ${when ?? 'Wait a moment and try again.'}`;
      return e.isSessionEnded ? 'This session has ended.' : 'The edit could not be started. Try again.';
  }
}

/** "You can edit again in 40 seconds." for a Retry-After; null without one. */
export function retryWhen(seconds: number | null): string | null {
  if (seconds === null || !Number.isFinite(seconds)) return null;
  return `You can edit again ${inAbout(Math.max(1, Math.ceil(seconds)))}.`;
}

function inAbout(seconds: number): string {
  if (seconds < 60) return `in ${plural(seconds, 'second')}`;
  if (seconds < 90 * 60) return `in ${plural(Math.ceil(seconds / 60), 'minute')}`;
  return `in about ${plural(Math.round(seconds / 3600), 'hour')}`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
