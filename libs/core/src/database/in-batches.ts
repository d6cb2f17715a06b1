/**
 * Runs a bounded DELETE (`deleteBatch(limit)` removes at most `limit` rows and says how many) until
 * a batch comes back short or `maxBatches` ran: the erasure jobs' shape, so each statement holds
 * its locks briefly and one run has an end (the next scheduled run goes on). Returns the total.
 */
export async function inBatches(
  deleteBatch: (limit: number) => Promise<number>,
  { batch = 1000, maxBatches = 50 }: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await deleteBatch(batch);
    total += n;
    if (n < batch) break;
  }
  return total;
}
