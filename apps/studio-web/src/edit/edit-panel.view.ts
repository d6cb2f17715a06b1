import type { EditTurn } from '../api/studio-api.types';
import { ICONS, h, icon } from '../ui/dom';
import { SceneStatusCard } from '../ui/scene-status.view';

export interface EditPanelHooks {
  submit(instruction: string): Promise<{ ok: true } | { ok: false; message: string }>;
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

    this.element = h(
      'div',
      { className: 'panel-stack' },
      [
        section('Scene', [this.sceneCard.element]),
        hasSourceImage ? section('Source image', [this.imageSlot]) : null,
        section('Edit the scene', [form], 'edit-form-title'),
        section('History', [this.empty, this.list]),
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
    this.empty.hidden = turns.length > 0;
    this.list.replaceChildren(
      ...turns.map((turn) => {
        const status =
          turn.status === 'processing'
            ? 'Working…'
            : turn.status === 'succeeded'
              ? turn.version !== null
                ? `Done · version ${turn.version}`
                : 'Done'
              : 'Failed';
        return h('li', { className: 'turn', attrs: { 'data-status': turn.status, 'data-operation-id': turn.operationId } }, [
          h('p', { className: 'turn-instruction', text: turn.instruction }),
          h('p', { className: 'turn-meta' }, [
            h('span', { className: 'turn-status', text: status }),
            h('time', { className: 'turn-time', text: formatTime(turn.createdAt), attrs: { datetime: turn.createdAt } }),
          ]),
          turn.status === 'failed' && turn.error ? h('p', { className: 'turn-error', text: turn.error.message }) : null,
        ]);
      }),
    );
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

function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}
