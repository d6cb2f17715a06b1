import { EditHistory } from '../model/edit-history';
import type { LensState } from '../model/lens-edit';
import { h } from '../ui/dom';
import type { TimelineSnapshot } from './timeline/timeline-workflow';

/** One undoable state: the timeline's move, or the lens. An entry's before and after are the same kind. */
export type EditState = { kind: 'timeline'; timeline: TimelineSnapshot } | { kind: 'lens'; lens: LensState };

export interface UndoRedoHost {
  announce(text: string): void;
  /** Puts a state back; false (with the reason announced) when it cannot now. */
  apply(state: EditState): boolean;
  /** Why nothing can be undone now (a take records, a render runs), or null. */
  blockedBy(): string | null;
}

/** What the debug hook and the tests read of the history. */
export interface UndoRedoState {
  undo: number;
  redo: number;
  undoLabel: string | null;
  redoLabel: string | null;
}

const IS_MAC = /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = IS_MAC ? '⌘' : 'Ctrl+';

/**
 * Undo and redo of the timeline's edits and of lens changes, one history for both (the pure
 * model in model/edit-history.ts): Ctrl/Cmd-Z and Shift-Ctrl/Cmd-Z (and Ctrl-Y), two buttons, and
 * every step said in the live region. A text box keeps its own Ctrl-Z.
 */
export class UndoRedo {
  readonly element: HTMLElement;
  private readonly history = new EditHistory<EditState>();
  private readonly undoButton: HTMLButtonElement;
  private readonly redoButton: HTMLButtonElement;
  private readonly abort = new AbortController();

  constructor(private readonly host: UndoRedoHost) {
    this.undoButton = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'undo', 'aria-keyshortcuts': IS_MAC ? 'Meta+Z' : 'Control+Z' },
      text: 'Undo',
      on: { click: () => this.undo() },
    });
    this.redoButton = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'redo', 'aria-keyshortcuts': IS_MAC ? 'Shift+Meta+Z' : 'Shift+Control+Z Control+Y' },
      text: 'Redo',
      on: { click: () => this.redo() },
    });
    this.element = h('div', { className: 'undo-redo', attrs: { role: 'group', 'aria-label': 'Edit history' } }, [
      this.undoButton,
      this.redoButton,
    ]);
    window.addEventListener('keydown', this.onKeyDown, { signal: this.abort.signal });
    this.sync();
  }

  get state(): UndoRedoState {
    const { undo, redo } = this.history.size;
    return { undo, redo, undoLabel: this.history.undoLabel, redoLabel: this.history.redoLabel };
  }

  /** Remembers an edit; `mergeKey` joins a quick run of the same edit (a slider dragged) into one. */
  record(label: string, before: EditState, after: EditState, mergeKey: string | null = null): void {
    this.history.record(label, before, after, { mergeKey, at: performance.now() });
    this.sync();
  }

  /** A gesture ended (a slider released): the next edit is a new entry. */
  seal(): void {
    this.history.seal();
  }

  clear(): void {
    this.history.clear();
    this.sync();
  }

  dispose(): void {
    this.abort.abort();
  }

  undo(): void {
    this.step('undo');
  }

  redo(): void {
    this.step('redo');
  }

  private step(direction: 'undo' | 'redo'): void {
    const blocked = this.host.blockedBy();
    if (blocked) {
      this.host.announce(blocked);
      return;
    }
    const label = direction === 'undo' ? this.history.undoLabel : this.history.redoLabel;
    if (label === null) {
      this.host.announce(direction === 'undo' ? 'Nothing to undo.' : 'Nothing to redo.');
      return;
    }
    const step = direction === 'undo' ? this.history.undo() : this.history.redo();
    if (!step) return;
    if (!this.host.apply(step.state)) {
      // Could not be applied: the history stays where it was.
      if (direction === 'undo') this.history.redo();
      else this.history.undo();
      this.sync();
      return;
    }
    this.sync();
    this.host.announce(`${direction === 'undo' ? 'Undone' : 'Redone'}: ${sentence(step.label)}`);
  }

  private sync(): void {
    const undo = this.history.undoLabel;
    const redo = this.history.redoLabel;
    // aria-disabled, not disabled: a keyboard user's focus stays on the button at the end of the history.
    this.undoButton.setAttribute('aria-disabled', String(undo === null));
    this.redoButton.setAttribute('aria-disabled', String(redo === null));
    this.undoButton.title = undo ? `Undo: ${sentence(undo)} (${MOD}Z)` : `Nothing to undo (${MOD}Z)`;
    this.redoButton.title = redo ? `Redo: ${sentence(redo)} (${IS_MAC ? '⇧⌘Z' : 'Ctrl+Shift+Z'})` : 'Nothing to redo';
  }

  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey || keepsOwnUndo(event.target)) return;
    const key = event.key.toLowerCase();
    if (key === 'z') {
      if (event.shiftKey) this.redo();
      else this.undo();
    } else if (key === 'y' && event.ctrlKey && !event.shiftKey) {
      this.redo();
    } else {
      return;
    }
    event.preventDefault();
  };
}

/** Text boxes undo their typing themselves; sliders, selects, checkboxes and buttons do not. */
function keepsOwnUndo(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === 'TEXTAREA') return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return ['text', 'search', 'email', 'url', 'tel', 'password', 'number'].includes(target.type);
}

/** "Keyframe 2 added at 1.00 s." from "Keyframe 2 added at 1.00 s" or with its stop. */
function sentence(label: string): string {
  return /[.!?]$/.test(label) ? label : `${label}.`;
}
