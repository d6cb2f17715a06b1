/**
 * The moments keys are due (an open session's expiry), earliest first: a binary heap of
 * (moment, key) with lazy deletion — an entry counts only while it is the key's current moment —
 * so setting, moving and dropping a key cost O(log n) and nothing is done per key while time
 * passes. The owner arms one timer at `next()`.
 */
export class ExpiryQueue {
  private readonly current = new Map<string, number>();
  private heap: Array<[at: number, key: string]> = [];

  get size(): number {
    return this.current.size;
  }

  /** Whether `next()` moved earlier (the owner re-arms its timer then). */
  set(key: string, at: number): boolean {
    if (this.current.get(key) === at) return false;
    const before = this.next();
    this.current.set(key, at);
    this.push([at, key]);
    this.compact();
    return before === null || at < before;
  }

  delete(key: string): void {
    this.current.delete(key);
    this.compact();
  }

  /** The earliest moment still set, or null. */
  next(): number | null {
    this.dropStale();
    return this.heap.length === 0 ? null : this.heap[0][0];
  }

  /** Takes the keys due at `now` (their moment ≤ now) out of the queue. */
  takeDue(now: number): string[] {
    const due: string[] = [];
    for (let top = this.next(); top !== null && top <= now; top = this.next()) {
      const [, key] = this.pop();
      this.current.delete(key);
      due.push(key);
    }
    return due;
  }

  private dropStale(): void {
    while (this.heap.length > 0 && this.current.get(this.heap[0][1]) !== this.heap[0][0]) this.pop();
  }

  /** Stale entries (moved or dropped keys) are rebuilt away once they outnumber the live ones. */
  private compact(): void {
    if (this.heap.length <= 2 * this.current.size + 64) return;
    this.heap = [];
    for (const [key, at] of this.current) this.push([at, key]);
  }

  private push(entry: [number, string]): void {
    const h = this.heap;
    h.push(entry);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent][0] <= h[i][0]) break;
      [h[parent], h[i]] = [h[i], h[parent]];
      i = parent;
    }
  }

  private pop(): [number, string] {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l][0] < h[m][0]) m = l;
        if (r < h.length && h[r][0] < h[m][0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i], h[m]];
        i = m;
      }
    }
    return top;
  }
}
