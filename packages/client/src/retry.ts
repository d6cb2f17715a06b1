import { setTimeout as delay } from 'node:timers/promises';

/** How the client retries requests that did not reach a decision: network errors, 429, 502, 503, 504. */
export interface RetryPolicy {
  /** Attempts in all, the first included. Default 5. */
  maxAttempts: number;
  /** First backoff when the answer carries no Retry-After; doubles per attempt, with full jitter. Default 250 ms. */
  baseDelayMs: number;
  /** Upper bound of any single wait, Retry-After included. Default 30 s. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 30_000 };

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const defaultSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, { signal });
};

/**
 * `Retry-After` in seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent
 * or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // An HTTP date names its day and month; Date.parse would also take '-3' as a year.
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** The wait before attempt `attempt + 1` (attempt counts from 1). */
export function backoffMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== null) return Math.min(retryAfterSeconds * 1000, policy.maxDelayMs);
  const ceiling = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(random() * ceiling);
}

/** Statuses that say "not decided, try again": the server did not act on the request. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * A fetch that failed before any answer (connection refused or reset, DNS): Node's fetch
 * (undici) throws `TypeError('fetch failed')` with the system error as its cause. Not an abort,
 * and not a mistake such as a bad URL (another TypeError), which no retry would fix.
 */
export function isNetworkError(error: unknown): boolean {
  // By name, not instanceof: the error may come from another realm (a vm context, jest).
  const e = error as { name?: unknown; message?: unknown } | null;
  return typeof e === 'object' && e !== null && e.name === 'TypeError' && e.message === 'fetch failed';
}
