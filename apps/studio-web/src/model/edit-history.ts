/**
 * Undo and redo as a pure model: a stack of edits, each remembered as the state before and after
 * it, with a label to announce. Free of the DOM and of three.js; what a state is (the timeline's
 * keyframes, the lens) and how it is applied is the caller's business.
 *
 * Edits that arrive in a quick run with the same merge key (one slider dragged, a focus ring
 * turned with the arrow keys) become one entry: its `before` is the run's first state, its
 * `after` the last, so one undo takes the whole gesture back. A run that ends where it started
 * leaves no entry at all.
 */

export interface HistoryEntry<S> {
  /** What the edit did, in words for the live region: "Keyframe 2 added at 1.00 s". */
  label: string;
  before: S;
  after: S;
  /** Edits with the same key in quick succession merge; null never merges. */
  mergeKey: string | null;
  /** When the entry last changed (ms, any monotonic clock). */
  at: number;
}

export interface RecordOptions {
  mergeKey?: string | null;
  /** The time of the edit (ms); the caller's clock, so specs need no fake timers. */
  at?: number;
}

/** What an undo or redo must apply: the state to restore, and the edit to name. */
export interface HistoryStep<S> {
  label: string;
  state: S;
}

export interface EditHistoryOptions<S> {
  /** Entries kept; the oldest go first. */
  limit?: number;
  /** How close (ms) two edits with the same merge key must be to merge. */
  mergeWindowMs?: number;
  /** Whether two states are the same (an edit that changed nothing is not recorded). */
  equals?: (a: S, b: S) => boolean;
}

export const DEFAULT_HISTORY_LIMIT = 100;
export const DEFAULT_MERGE_WINDOW_MS = 1_000;

export class EditHistory<S> {
  private readonly done: HistoryEntry<S>[] = [];
  private readonly undone: HistoryEntry<S>[] = [];
  private readonly limit: number;
  private readonly mergeWindowMs: number;
  private readonly equals: (a: S, b: S) => boolean;
  /** The newest entry may no longer take merges (an undo, a redo or `seal` came between). */
  private sealed = false;

  constructor(options: EditHistoryOptions<S> = {}) {
    this.limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_HISTORY_LIMIT));
    this.mergeWindowMs = Math.max(0, options.mergeWindowMs ?? DEFAULT_MERGE_WINDOW_MS);
    this.equals = options.equals ?? structurallyEqual;
  }

  get canUndo(): boolean {
    return this.done.length > 0;
  }

  get canRedo(): boolean {
    return this.undone.length > 0;
  }

  /** The label of what Undo would take back, or null. */
  get undoLabel(): string | null {
    return this.done[this.done.length - 1]?.label ?? null;
  }

  /** The label of what Redo would do again, or null. */
  get redoLabel(): string | null {
    return this.undone[this.undone.length - 1]?.label ?? null;
  }

  get size(): { undo: number; redo: number } {
    return { undo: this.done.length, redo: this.undone.length };
  }

  /**
   * Remembers an edit from `before` to `after`. A new edit drops what was undone (the usual
   * linear history). Returns false when nothing was recorded (the states are equal).
   */
  record(label: string, before: S, after: S, options: RecordOptions = {}): boolean {
    const mergeKey = options.mergeKey ?? null;
    const at = options.at ?? 0;
    const top = this.done[this.done.length - 1];
    if (top && !this.sealed && mergeKey !== null && top.mergeKey === mergeKey && at - top.at <= this.mergeWindowMs) {
      this.undone.length = 0;
      top.after = after;
      top.label = label;
      top.at = at;
      // Dragged back to where it began: no edit is left to undo.
      if (this.equals(top.before, top.after)) this.done.pop();
      return true;
    }
    if (this.equals(before, after)) return false;
    this.undone.length = 0;
    this.done.push({ label, before, after, mergeKey, at });
    if (this.done.length > this.limit) this.done.splice(0, this.done.length - this.limit);
    this.sealed = false;
    return true;
  }

  /** Takes the newest edit back: the state to restore (its `before`), or null when there is none. */
  undo(): HistoryStep<S> | null {
    const entry = this.done.pop();
    if (!entry) return null;
    this.undone.push(entry);
    this.sealed = true;
    return { label: entry.label, state: entry.before };
  }

  /** Does the newest undone edit again: the state to restore (its `after`), or null. */
  redo(): HistoryStep<S> | null {
    const entry = this.undone.pop();
    if (!entry) return null;
    this.done.push(entry);
    this.sealed = true;
    return { label: entry.label, state: entry.after };
  }

  /** The next edit starts its own entry, whatever its merge key (a gesture ended). */
  seal(): void {
    this.sealed = true;
  }

  /** Forgets everything (another move was loaded). */
  clear(): void {
    this.done.length = 0;
    this.undone.length = 0;
    this.sealed = false;
  }
}

/** Deep equality for plain data (numbers, strings, arrays, objects): what edit states are. */
export function structurallyEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && structurallyEqual(a[k as keyof typeof a], b[k as keyof typeof b]));
}
