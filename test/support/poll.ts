/**
 * Polls `probe` until it returns a value `accept` likes, or fails after `timeoutMs`. Tests wait
 * for observable outcomes this way instead of sleeping for a guessed duration.
 */
export async function pollUntil<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (accept(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)?.slice(0, 500)}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
