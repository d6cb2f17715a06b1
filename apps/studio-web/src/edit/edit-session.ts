import { StudioApiError, type StudioApiClient } from '../api/studio-api.client';
import type { CreatedEdit, EditTurn, SafeError } from '../api/studio-api.types';
import { editRefusalMessage } from './edit-refusal';

export interface EditSessionHooks {
  onChange(turns: readonly EditTurn[]): void;
  /** A turn finished with a new version: the viewport should move to it. */
  onSucceeded(turn: EditTurn): void;
  post(type: string, payload: Record<string, unknown>): void;
  announce(text: string): void;
  /** Whether the event stream is up; polling fills in only while it is not. */
  streamConnected(): boolean;
}

export type SubmitResult = { ok: true } | { ok: false; message: string };

const POLL_WHILE_DISCONNECTED_MS = 2_500;
const POLL_AS_SAFETY_NET_MS = 10_000;

/**
 * The multi-turn edit history of the session. The server is the record (so the history
 * survives a reload); `edit.updated` events keep it live, and polling `GET /edits` covers
 * gaps in the stream. Each turn's outcome is announced to the parent once.
 */
export class EditSession {
  private turns: EditTurn[] = [];
  /** Operation ids whose final state the parent has already heard about (or never should). */
  private readonly settled = new Set<string>();
  private readonly startedHere = new Set<string>();
  private pollTimer: number | undefined;
  private stopped = false;
  /** Until the history is loaded, finished turns that arrive are history too, not news. */
  private loaded = false;

  constructor(
    private readonly api: StudioApiClient,
    private readonly hooks: EditSessionHooks,
  ) {}

  get list(): readonly EditTurn[] {
    return this.turns;
  }

  get pending(): boolean {
    return this.turns.some((t) => t.status === 'processing');
  }

  /** Loads the history; turns that already finished are history, not news for the parent. */
  async load(): Promise<void> {
    let turns: EditTurn[];
    try {
      turns = await this.api.edits();
    } catch (e) {
      // A first read that failed (a blip of the network or the server) is retried by the poll.
      this.schedulePoll();
      throw e;
    }
    this.loaded = true;
    for (const t of turns) {
      if (t.status !== 'processing' && !this.startedHere.has(t.operationId)) this.settled.add(t.operationId);
      this.merge(t);
    }
    this.hooks.onChange(this.turns);
    this.schedulePoll();
  }

  async submit(instruction: string): Promise<SubmitResult> {
    // The server refuses control characters, newlines included: an instruction is one line.
    const text = instruction.replace(/\s+/g, ' ').trim();
    if (text === '') return { ok: false, message: 'Describe the change you want first.' };
    return this.start(() => this.api.createEdit(text), text, null);
  }

  /**
   * Reverts to `version`: a turn like an edit's, whose result (the next version) is that version
   * again. The history keeps every version; the parent hears `edit.*` with `revertTo`.
   */
  revert(version: number): Promise<SubmitResult> {
    return this.start(() => this.api.revertTo(version), `Revert to version ${version}`, version);
  }

  private async start(create: () => Promise<CreatedEdit>, instruction: string, revertTo: number | null): Promise<SubmitResult> {
    try {
      const created = await create();
      this.startedHere.add(created.operationId);
      this.merge({
        operationId: created.operationId,
        instruction,
        revertTo,
        status: 'processing',
        version: null,
        error: null,
        createdAt: created.createdAt ?? new Date().toISOString(),
        completedAt: null,
      });
      this.hooks.post('edit.started', { operationId: created.operationId, instruction, ...revertField(revertTo) });
      this.hooks.announce(revertTo === null ? 'Edit started.' : `Reverting to version ${revertTo}.`);
      this.schedulePoll();
      return { ok: true };
    } catch (e) {
      const message = editRefusalMessage(e, revertTo !== null);
      if (e instanceof StudioApiError && !e.isSessionEnded) this.hooks.post('error', { code: e.code, message });
      return { ok: false, message };
    }
  }

  /** An `edit.updated` event, or a row of a re-read list. */
  merge(update: Partial<EditTurn> & { operationId: string }): void {
    if (this.stopped) return;
    const index = this.turns.findIndex((t) => t.operationId === update.operationId);
    const previous = index === -1 ? null : this.turns[index];
    const next: EditTurn = {
      operationId: update.operationId,
      instruction: update.instruction ?? previous?.instruction ?? '',
      revertTo: typeof update.revertTo === 'number' ? update.revertTo : (previous?.revertTo ?? null),
      // A stale list (read before the turn finished) must not turn a finished turn back.
      status:
        previous && previous.status !== 'processing' && update.status === 'processing'
          ? previous.status
          : (update.status ?? previous?.status ?? 'processing'),
      version: update.version ?? previous?.version ?? null,
      error: update.error ?? previous?.error ?? null,
      createdAt: update.createdAt ?? previous?.createdAt ?? new Date().toISOString(),
      completedAt: update.completedAt ?? previous?.completedAt ?? null,
    };
    if (index === -1) this.turns.push(next);
    else this.turns[index] = next;
    this.turns = sortTurns(this.turns);
    this.hooks.onChange(this.turns);
    this.settle(next);
  }

  /** Re-reads the list (after a reconnect, or while waiting without a stream). */
  async sync(): Promise<void> {
    try {
      const turns = await this.api.edits();
      for (const turn of turns) this.merge(turn);
      this.loaded = true;
    } catch {
      // The next poll or the stream will catch up; a 401 has already ended the studio.
    }
    this.schedulePoll();
  }

  stop(): void {
    this.stopped = true;
    window.clearTimeout(this.pollTimer);
  }

  private settle(turn: EditTurn): void {
    if (turn.status === 'processing' || this.settled.has(turn.operationId)) return;
    if (!this.loaded && !this.startedHere.has(turn.operationId)) {
      this.settled.add(turn.operationId);
      return;
    }
    this.settled.add(turn.operationId);
    if (turn.status === 'succeeded') {
      this.hooks.post('edit.succeeded', {
        operationId: turn.operationId,
        instruction: turn.instruction,
        version: turn.version,
        ...revertField(turn.revertTo),
      });
      const what = turn.revertTo === null ? 'Edit applied' : `Reverted to version ${turn.revertTo}`;
      this.hooks.announce(turn.version !== null ? `${what}: version ${turn.version}.` : `${what}.`);
      this.hooks.onSucceeded(turn);
    } else {
      const error: SafeError = turn.error ?? { code: 'edit_failed', message: 'The edit could not be applied.' };
      this.hooks.post('edit.failed', {
        operationId: turn.operationId,
        instruction: turn.instruction,
        error,
        ...revertField(turn.revertTo),
      });
      this.hooks.announce(`${turn.revertTo === null ? 'Edit' : 'Revert'} failed: ${error.message}`);
    }
  }

  private schedulePoll(): void {
    window.clearTimeout(this.pollTimer);
    // Until the history is read once, keep trying; after that, only while a turn is running.
    if (this.stopped || (this.loaded && !this.pending)) return;
    const delay = this.hooks.streamConnected() ? POLL_AS_SAFETY_NET_MS : POLL_WHILE_DISCONNECTED_MS;
    this.pollTimer = window.setTimeout(() => void this.sync(), delay);
  }
}

function sortTurns(turns: EditTurn[]): EditTurn[] {
  return [...turns].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
}

/** Events about a revert name the version it restores; an edit's stay as they always were. */
function revertField(revertTo: number | null): { revertTo?: number } {
  return revertTo === null ? {} : { revertTo };
}
