import type { EditTurn } from '../api/studio-api.types';
import { ICONS, h, icon } from '../ui/dom';
import { SceneStatusCard } from '../ui/scene-status.view';
import { CompareControls, type CompareControlsHooks } from './compare-controls.view';
import { VersionHistoryView, type VersionMarks } from './version-history.view';

type SubmitResult = { ok: true } | { ok: false; message: string };

export interface EditPanelHooks {
  submit(instruction: string): Promise<SubmitResult>;
  /** Shows a version (a history entry was chosen). */
  view(version: number): void;
  revert(version: number): Promise<SubmitResult>;
  compare: CompareControlsHooks['compare'];
  stopCompare(): void;
}

/** The studio API's limit (code points; maxlength counts UTF-16 units, so it errs short). */
const INSTRUCTION_MAX = 2000;

/**
 * The edit workflow: the scene's status, the source image it came from, a prompt box for the
 * next change, and the history of changes with the version each one produced.
 */
export class EditPanel {
  readonly element: HTMLElement;
  readonly sceneCard = new SceneStatusCard();
  private readonly imageSlot = h('div', { className: 'source-image-slot' });
  private readonly textarea: HTMLTextAreaElement;
  private readonly submitButton: HTMLButtonElement;
  private readonly formError = h('p', { className: 'form-error', attrs: { id: 'edit-error', role: 'alert', hidden: true } });
  private readonly readyHint = h('p', { className: 'hint', attrs: { id: 'edit-hint' }, text: 'Press Enter to apply the edit.' });
  private readonly list = h('ol', { className: 'turn-list', attrs: { id: 'edit-history', 'aria-label': 'Edit history' } });
  private readonly empty = h('p', { className: 'empty', text: 'No edits yet. Describe a change above to make the first one.' });
  private readonly history: VersionHistoryView;
  private readonly historySection: HTMLElement;
  private readonly compare: CompareControls;
  private readonly historyError = h('p', { className: 'form-error', attrs: { id: 'history-error', role: 'alert', hidden: true } });
  private turns: readonly EditTurn[] = [];
  private marks: VersionMarks = { latest: null, viewing: null, busy: false };
  private sceneReady = false;
  private busy = false;

  constructor(
    private readonly hooks: EditPanelHooks,
    hasSourceImage: boolean,
  ) {
    this.textarea = h('textarea', {
      className: 'textarea',
      attrs: {
        id: 'edit-instruction',
        name: 'instruction',
        rows: 3,
        maxlength: INSTRUCTION_MAX,
        placeholder: 'e.g. make it night, add fog, more trees by the lake',
        'aria-describedby': 'edit-hint edit-error',
        autocomplete: 'off',
      },
      on: {
        keydown: (event) => {
          if (event.key === 'Enter' && !event.isComposing) {
            event.preventDefault();
            void this.send();
          }
        },
        input: () => this.refreshButton(),
      },
    });
    this.submitButton = h('button', { className: 'button button-primary', attrs: { type: 'submit', id: 'edit-submit' } }, [
      icon([...ICONS.send]),
      'Apply edit',
    ]);

    const form = h(
      'form',
      {
        className: 'edit-form',
        attrs: { 'aria-label': 'Edit the scene', novalidate: true },
        on: {
          submit: (event) => {
            event.preventDefault();
            void this.send();
          },
        },
      },
      [
        h('label', { className: 'field-label', attrs: { for: 'edit-instruction' }, text: 'Edit instruction' }),
        this.textarea,
        this.readyHint,
        this.formError,
        h('div', { className: 'form-actions' }, [this.submitButton]),
      ],
    );

    this.history = new VersionHistoryView({ view: (version) => hooks.view(version), revert: (version) => void this.revert(version) });
    this.compare = new CompareControls({ compare: (a, b) => hooks.compare(a, b), stop: () => hooks.stopCompare() });
    this.historySection = section('History', [this.history.origin, this.empty, this.list, this.historyError]);
    this.element = h(
      'div',
      { className: 'panel-stack' },
      [
        section('Scene', [this.sceneCard.element]),
        hasSourceImage ? section('Source image', [this.imageSlot]) : null,
        section('Edit the scene', [form], 'edit-form-title'),
        this.historySection,
        section('Compare versions', [this.compare.element], 'compare-title'),
      ].filter((x): x is HTMLElement => x !== null),
    );
    this.imageSlot.append(h('div', { className: 'image-placeholder', text: 'Loading the source image…' }));
    this.refreshButton();
  }

  setSourceImage(url: string | null): void {
    if (url === null) {
      this.imageSlot.replaceChildren(h('p', { className: 'empty', text: 'The source image could not be loaded.' }));
      return;
    }
    const img = h('img', {
      className: 'source-image',
      attrs: { src: url, alt: 'The source image this scene was generated from', decoding: 'async' },
    });
    this.imageSlot.replaceChildren(img);
  }

  setSceneReady(ready: boolean): void {
    this.sceneReady = ready;
    this.readyHint.textContent = ready ? 'Press Enter to apply the edit.' : 'Edits can start once the scene is ready.';
    this.refreshButton();
  }

  renderTurns(turns: readonly EditTurn[]): void {
    this.turns = turns;
    // The entries are rebuilt: a keyboard user's focus goes back to the same action in its new entry.
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const refocus = focused && this.historySection.contains(focused) ? focusKey(focused) : null;
    this.empty.hidden = turns.length > 0;
    this.history.renderOrigin(this.marks);
    this.list.replaceChildren(...turns.map((turn) => this.history.renderTurn(turn, this.marks)));
    if (refocus) this.historySection.querySelector<HTMLElement>(refocus)?.focus();
  }

  /** Which version is the latest and which is on screen; whether a comparison is showing. */
  setVersions(latest: number | null, viewing: number | null, comparing: boolean): void {
    const marks = { ...this.marks, latest, viewing };
    this.compare.update(latest, comparing);
    if (marks.latest === this.marks.latest && marks.viewing === this.marks.viewing) return;
    this.marks = marks;
    this.renderTurns(this.turns);
  }

  private async revert(version: number): Promise<void> {
    if (this.marks.busy) return;
    this.setBusy(true);
    this.showHistoryError(null);
    const result = await this.hooks.revert(version);
    this.setBusy(false);
    if (!result.ok) this.showHistoryError(result.message);
  }

  private setBusy(busy: boolean): void {
    this.marks = { ...this.marks, busy };
    this.renderTurns(this.turns);
  }

  private showHistoryError(message: string | null): void {
    this.historyError.hidden = message === null;
    this.historyError.textContent = message ?? '';
  }

  private async send(): Promise<void> {
    if (this.busy) return;
    if (!this.sceneReady) {
      this.showError('The scene is not ready yet. Wait until it finishes, then try again.');
      return;
    }
    const instruction = this.textarea.value.trim();
    if (instruction === '') {
      this.showError('Describe the change you want first.');
      this.textarea.focus();
      return;
    }
    this.busy = true;
    this.refreshButton();
    this.showError(null);
    const result = await this.hooks.submit(instruction);
    this.busy = false;
    if (result.ok) this.textarea.value = '';
    else this.showError(result.message);
    this.refreshButton();
  }

  private showError(message: string | null): void {
    this.formError.hidden = message === null;
    this.formError.textContent = message ?? '';
    this.textarea.setAttribute('aria-invalid', String(message !== null));
  }

  private refreshButton(): void {
    // Not `disabled` while the scene generates: a disabled button drops out of the tab order
    // and says nothing; aria-disabled keeps it reachable and the hint explains why.
    const unavailable = this.busy || !this.sceneReady;
    this.submitButton.setAttribute('aria-disabled', String(unavailable));
    this.submitButton.classList.toggle('is-busy', this.busy);
  }
}

function section(title: string, children: HTMLElement[], id?: string): HTMLElement {
  const headingId = id ?? `section-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('section', { className: 'panel-section', attrs: { 'aria-labelledby': headingId } }, [
    h('h2', { className: 'panel-title', text: title, attrs: { id: headingId } }),
    ...children,
  ]);
}

/** A selector for the same action of the same version after the history is rebuilt. */
function focusKey(el: HTMLElement): string | null {
  if (el.dataset.viewVersion) return `[data-view-version="${el.dataset.viewVersion}"]`;
  if (el.dataset.revertVersion) return `[data-revert-version="${el.dataset.revertVersion}"]`;
  return null;
}
