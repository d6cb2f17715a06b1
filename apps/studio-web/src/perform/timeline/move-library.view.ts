import { ICONS, h, icon } from '../../ui/dom';
import type { CameraPathSummary } from '../../model/camera-path-store';
import { VIEW_NAME_MAX, normalizeViewName } from '../saved-views';

export interface MoveLibraryHooks {
  announce(text: string): void;
  save(name: string): Promise<void>;
  load(cameraPathId: string): Promise<void>;
  remove(cameraPathId: string): Promise<void>;
  importFile(file: File): Promise<void>;
  export(): void;
}

/**
 * Where camera moves go and come from: saved per scene under a name (saving under a name already
 * in the list overwrites that move), loaded and deleted from the list, imported from a
 * camera-path file and exported. Framed, an export goes to the page around the studio (the
 * sandbox has no downloads); opened on its own, the studio offers it as a download here.
 */
export class MoveLibrary {
  readonly element: HTMLElement;
  private readonly name: HTMLInputElement;
  private readonly saveButton: HTMLButtonElement;
  private readonly error = h('p', { className: 'field-error', attrs: { id: 'camera-move-error', hidden: true } });
  private readonly list = h('ul', { className: 'saved-views', attrs: { id: 'camera-moves', 'aria-label': 'Saved camera moves' } });
  private readonly importInput: HTMLInputElement;
  private readonly exportButton: HTMLButtonElement;
  private readonly download = h('a', { className: 'button button-small', attrs: { id: 'camera-move-download', hidden: true } });
  private editable = true;
  private hasMove: boolean | null = null;

  constructor(
    private readonly hooks: MoveLibraryHooks,
    framed: boolean,
  ) {
    this.name = h('input', {
      className: 'text-input',
      attrs: {
        type: 'text',
        id: 'camera-move-name',
        maxlength: VIEW_NAME_MAX,
        autocomplete: 'off',
        'aria-describedby': 'camera-move-error',
      },
    });
    this.saveButton = h('button', {
      className: 'button button-small',
      attrs: { type: 'submit', id: 'camera-move-save' },
      text: 'Save move',
    });
    const form = h('form', { className: 'save-view', attrs: { id: 'camera-move-form' } }, [
      h('label', { className: 'field-label', attrs: { for: 'camera-move-name' }, text: 'Save the move as' }),
      h('div', { className: 'save-view-row' }, [this.name, this.saveButton]),
    ]);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.save();
    });

    this.importInput = h('input', {
      className: 'sr-only file-input',
      attrs: { type: 'file', id: 'camera-move-import', accept: 'application/json,.json' },
    });
    this.importInput.addEventListener('change', () => {
      const file = this.importInput.files?.[0];
      // Cleared first, so choosing the same file again still fires `change`.
      this.importInput.value = '';
      if (file) void this.run(() => this.hooks.importFile(file));
    });
    this.exportButton = h(
      'button',
      {
        className: 'button button-small',
        attrs: { type: 'button', id: 'camera-move-export' },
        on: { click: () => this.hooks.export() },
      },
      [icon([...ICONS.download]), 'Export'],
    );

    this.element = h('div', { className: 'move-library', attrs: { role: 'group', 'aria-labelledby': 'move-library-title' } }, [
      h('h3', { className: 'subsection-title', attrs: { id: 'move-library-title' }, text: 'Saved moves and files' }),
      form,
      this.error,
      this.list,
      h('div', { className: 'timeline-row' }, [
        h('label', { className: 'button button-small file-button', attrs: { for: 'camera-move-import' } }, [
          this.importInput,
          'Import camera path',
        ]),
        this.exportButton,
      ]),
      this.download,
      h('p', {
        className: 'hint',
        text: framed
          ? 'Export hands the camera path (JSON) to the page around the studio, which offers it for download.'
          : 'Import or export a camera-path file (JSON).',
      }),
    ]);
    this.setSaved([]);
  }

  /** The move's name after loading one, so saving again overwrites it. */
  set currentName(name: string | null) {
    this.name.value = name ?? '';
  }

  setSaved(saved: readonly CameraPathSummary[]): void {
    this.list.replaceChildren(
      ...saved.map((path) =>
        h('li', { className: 'saved-view', attrs: { 'data-camera-path-id': path.cameraPathId } }, [
          h('button', {
            className: 'button button-small saved-view-go',
            attrs: { type: 'button', 'aria-label': `Load camera move ${path.name}`, disabled: !this.editable },
            text: path.name,
            on: { click: () => void this.run(() => this.hooks.load(path.cameraPathId)) },
          }),
          h('button', {
            className: 'button button-small saved-view-remove',
            attrs: { type: 'button', 'aria-label': `Delete camera move ${path.name}` },
            text: '×',
            on: { click: () => void this.run(() => this.hooks.remove(path.cameraPathId)) },
          }),
        ]),
      ),
    );
    this.list.hidden = saved.length === 0;
  }

  /** While a take records, nothing may replace the move (loading, importing); saving may. */
  setEditable(editable: boolean): void {
    this.editable = editable;
    this.importInput.disabled = !editable;
    this.list.querySelectorAll<HTMLButtonElement>('.saved-view-go').forEach((b) => (b.disabled = !editable));
  }

  /** Called every frame: touches the DOM only when it changes. */
  setHasMove(hasMove: boolean): void {
    if (hasMove === this.hasMove) return;
    this.hasMove = hasMove;
    this.exportButton.disabled = !hasMove;
    this.saveButton.disabled = !hasMove;
  }

  /** Unframed: the exported file as a link (a new export replaces the last one's URL). */
  offerDownload(url: string, fileName: string): void {
    this.download.href = url;
    this.download.download = fileName;
    this.download.replaceChildren(icon([...ICONS.download]), `Download ${fileName}`);
    this.download.hidden = false;
  }

  showError(message: string | null): void {
    this.error.hidden = message === null;
    this.error.textContent = message ?? '';
  }

  private saving = false;

  private async save(): Promise<void> {
    const name = normalizeViewName(this.name.value);
    if (!name) {
      this.name.setAttribute('aria-invalid', 'true');
      this.showError(`Give the move a name (up to ${VIEW_NAME_MAX} characters).`);
      this.hooks.announce(this.error.textContent ?? '');
      return;
    }
    this.name.removeAttribute('aria-invalid');
    this.name.value = name;
    // A second submit while the first is on its way would save the move twice under one name.
    if (this.saving) return;
    this.saving = true;
    try {
      await this.run(() => this.hooks.save(name));
    } finally {
      this.saving = false;
    }
  }

  /** Runs a store or file action; a failure is shown and announced, never thrown at the page. */
  private async run(action: () => Promise<void>): Promise<void> {
    this.showError(null);
    try {
      await action();
    } catch (e) {
      const message = e instanceof Error && e.message ? e.message : 'That did not work. Try again.';
      this.showError(message);
      this.hooks.announce(message);
    }
  }
}
