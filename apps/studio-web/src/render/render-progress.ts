/**
 * How often a render's progress is read out. The progress bar speaks its value to anyone who
 * looks at it; the live region only hears of whole quarters, and never twice within
 * MIN_GAP_MS, so a short render is not a stream of interruptions and a long one still reports.
 */
const MIN_GAP_MS = 10_000;

export interface ProgressAnnouncements {
  /** The last quarter announced (0 before any). */
  quarter: number;
  /** When the last announcement (the start included) was made, in ms. */
  at: number;
}

export function startAnnouncements(now: number): ProgressAnnouncements {
  return { quarter: 0, at: now };
}

/**
 * The words to announce now for `done` of `total` frames, or null; updates `state` when it says
 * something. The last frame is not a quarter: the end is announced on its own.
 */
export function progressAnnouncement(state: ProgressAnnouncements, done: number, total: number, now: number): string | null {
  if (total <= 0 || done >= total) return null;
  const quarter = Math.floor((done / total) * 4);
  if (quarter <= state.quarter || now - state.at < MIN_GAP_MS) return null;
  state.quarter = quarter;
  state.at = now;
  return `Rendering: ${quarter * 25} % done, frame ${done} of ${total}.`;
}
