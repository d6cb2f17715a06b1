import { h, setText } from '../ui/dom';
import type { CameraRig } from '../viewport/camera-rig';
import type { GuideId } from '../viewport/frame-guides.view';
import {
  ASPECTS,
  PRIME_FOCALS_MM,
  SENSORS,
  formatDistance,
  parseFocalEntry,
  type AspectId,
  type DistanceUnit,
  type SensorId,
} from '../model/lens';
import { VIEW_NAME_MAX, normalizeViewName, type SavedView } from './saved-views';

export interface CinemaControlsHooks {
  announce(text: string): void;
  setFrame(sensor: SensorId, aspect: AspectId): void;
  setFocusAid(enabled: boolean): Promise<boolean>;
  setGuide(guide: GuideId, enabled: boolean): void;
  setDistanceUnit(unit: DistanceUnit): void;
  saveView(name: string): Promise<void>;
  goToView(id: string): void;
  removeView(id: string): Promise<void>;
}

export const FOCUS_AID_NOTE = 'Edges in focus light up green (focus peaking). Not drawn into recordings.';

const GUIDES: { id: GuideId; label: string }[] = [
  { id: 'thirds', label: 'Rule of thirds' },
  { id: 'safe', label: 'Safe areas (action 93 %, title 90 %)' },
  { id: 'horizon', label: 'Horizon level' },
];

/**
 * The cinema-camera controls beside the perform panel's sliders: prime stops and a typed focal
 * length, sensor and aspect, the focus distance in metres or feet with a focus aid, framing
 * guides, the active preset and saved views. Each group is an element the panel places in its
 * sections; the rig stays the one source of truth (`sync` re-reads it).
 */
export class CinemaControls {
  /** Lens section, after the focal length slider. */
  readonly primes = h('div', { className: 'prime-grid', attrs: { role: 'group', 'aria-label': 'Prime lenses', id: 'prime-lenses' } });
  /** The typed focal length: lives in the viewport toolbar, reachable in the smallest frame. */
  readonly focalEntry: HTMLElement;
  readonly frameFields: HTMLElement;
  readonly focusFields: HTMLElement;
  readonly guideFields: HTMLElement;
  readonly viewFields: HTMLElement;
  private readonly primeButtons = new Map<number, HTMLButtonElement>();
  private readonly focalInput: HTMLInputElement;
  private readonly sensorSelect: HTMLSelectElement;
  private readonly aspectSelect: HTMLSelectElement;
  private readonly frameNote = h('p', { className: 'hint', attrs: { id: 'frame-note' } });
  private readonly focusReadout = h('p', { className: 'readout', attrs: { id: 'focus-readout' } });
  private readonly unitInputs: HTMLInputElement[];
  private readonly focusAid: HTMLInputElement;
  private readonly focusAidNote = h('p', { className: 'hint', attrs: { id: 'focus-aid-note' } });
  private readonly activeView = h('p', { className: 'active-view', attrs: { id: 'active-view' } });
  private readonly viewName: HTMLInputElement;
  private readonly viewError = h('p', { className: 'field-error', attrs: { id: 'view-name-error', hidden: true } });
  private readonly savedList = h('ul', { className: 'saved-views', attrs: { id: 'saved-views', 'aria-label': 'Saved views' } });
  private unit: DistanceUnit = 'm';
  private renderedRevision = -1;
  private renderedFocal = Number.NaN;

  constructor(
    private readonly rig: CameraRig,
    private readonly hooks: CinemaControlsHooks,
  ) {
    for (const mm of PRIME_FOCALS_MM) {
      const button = h('button', {
        className: 'button button-small prime-button',
        attrs: { type: 'button', 'aria-pressed': 'false', 'aria-label': `${mm} mm prime`, 'data-prime': mm },
        text: String(mm),
        on: { click: () => this.setFocal(mm, `${mm} mm prime.`) },
      });
      this.primeButtons.set(mm, button);
      this.primes.append(button);
    }

    this.focalInput = h('input', {
      className: 'focal-entry-input',
      attrs: {
        type: 'text',
        id: 'focal-entry',
        inputmode: 'decimal',
        autocomplete: 'off',
        spellcheck: 'false',
        size: 4,
        'aria-describedby': 'focal-entry-unit',
      },
    });
    this.focalInput.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.commitFocalEntry();
      } else if (event.key === 'Escape') {
        // Back to the lens in use (sync leaves a focused box alone, so set it here).
        this.focalInput.value = formatMm(this.rig.focalLengthMm);
        this.renderedFocal = this.rig.focalLengthMm;
        this.focalInput.removeAttribute('aria-invalid');
      }
    });
    this.focalInput.addEventListener('change', () => this.commitFocalEntry());
    this.focalEntry = h('div', { className: 'focal-entry' }, [
      h('label', { attrs: { for: 'focal-entry' }, className: 'toolbar-label', text: 'Focal length' }),
      this.focalInput,
      h('span', { className: 'toolbar-unit', attrs: { id: 'focal-entry-unit' }, text: 'mm' }),
    ]);

    this.sensorSelect = h(
      'select',
      { className: 'select', attrs: { id: 'sensor' } },
      SENSORS.map((s) => h('option', { attrs: { value: s.id }, text: `${s.name} (${s.widthMm} × ${s.heightMm} mm)` })),
    );
    this.aspectSelect = h(
      'select',
      { className: 'select', attrs: { id: 'aspect' } },
      ASPECTS.map((a) => h('option', { attrs: { value: a.id }, text: a.id })),
    );
    const onFrame = () => this.hooks.setFrame(this.sensorSelect.value as SensorId, this.aspectSelect.value as AspectId);
    this.sensorSelect.addEventListener('change', onFrame);
    this.aspectSelect.addEventListener('change', onFrame);
    this.frameFields = h('div', { className: 'frame-fields' }, [
      h('div', { className: 'field' }, [
        h('label', { className: 'field-label', attrs: { for: 'sensor' }, text: 'Sensor' }),
        this.sensorSelect,
      ]),
      h('div', { className: 'field' }, [
        h('label', { className: 'field-label', attrs: { for: 'aspect' }, text: 'Aspect ratio' }),
        this.aspectSelect,
      ]),
      this.frameNote,
    ]);

    this.unitInputs = (['m', 'ft'] as const).map((u) => {
      const input = h('input', { className: 'segment-input', attrs: { type: 'radio', name: 'distance-unit', id: `unit-${u}`, value: u } });
      input.addEventListener('change', () => input.checked && this.setUnit(u));
      return input;
    });
    this.focusAid = h('input', { attrs: { type: 'checkbox', id: 'focus-aid', 'aria-describedby': 'focus-aid-note' } });
    this.focusAid.addEventListener('change', () => void this.toggleFocusAid());
    this.focusAidNote.textContent = FOCUS_AID_NOTE;
    this.focusFields = h('div', { className: 'focus-fields' }, [
      h('div', { className: 'field-row' }, [
        this.focusReadout,
        h('fieldset', { className: 'segmented segmented-compact' }, [
          h('legend', { className: 'sr-only', text: 'Distance unit' }),
          h('div', { className: 'segmented-options' }, [
            h('label', { className: 'segment', attrs: { for: 'unit-m', title: 'Metres' } }, [this.unitInputs[0], h('span', { text: 'm' })]),
            h('label', { className: 'segment', attrs: { for: 'unit-ft', title: 'Feet' } }, [this.unitInputs[1], h('span', { text: 'ft' })]),
          ]),
        ]),
      ]),
      h('label', { className: 'checkbox', attrs: { for: 'focus-aid' } }, [this.focusAid, h('span', { text: 'Focus aid' })]),
      this.focusAidNote,
    ]);

    this.guideFields = h(
      'div',
      { className: 'guide-fields', attrs: { role: 'group', 'aria-label': 'Framing guides' } },
      GUIDES.map((g) => {
        const input = h('input', { attrs: { type: 'checkbox', id: `guide-${g.id}` } });
        input.addEventListener('change', () => {
          this.hooks.setGuide(g.id, input.checked);
          this.hooks.announce(`${g.label}: ${input.checked ? 'shown' : 'hidden'}.`);
        });
        return h('label', { className: 'checkbox', attrs: { for: `guide-${g.id}` } }, [input, h('span', { text: g.label })]);
      }),
    );

    this.viewName = h('input', {
      className: 'text-input',
      attrs: { type: 'text', id: 'view-name', maxlength: VIEW_NAME_MAX, autocomplete: 'off', 'aria-describedby': 'view-name-error' },
    });
    const form = h('form', { className: 'save-view', attrs: { id: 'save-view-form' } }, [
      h('label', { className: 'field-label', attrs: { for: 'view-name' }, text: 'Save this view as a preset' }),
      h('div', { className: 'save-view-row' }, [
        this.viewName,
        h('button', { className: 'button button-small', attrs: { type: 'submit', id: 'save-view' }, text: 'Save view' }),
      ]),
      this.viewError,
    ]);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.saveView();
    });
    this.viewFields = h('div', { className: 'view-fields' }, [this.activeView, form, this.savedList]);

    this.setActiveView(null);
    this.setSavedViews([]);
    this.sync(true);
  }

  get distanceUnit(): DistanceUnit {
    return this.unit;
  }

  /** Re-reads the rig when it changed; cheap enough to call every frame. */
  sync(force = false): void {
    if (!force && this.rig.revision === this.renderedRevision) return;
    this.renderedRevision = this.rig.revision;
    const rig = this.rig;
    for (const [mm, button] of this.primeButtons) button.setAttribute('aria-pressed', String(Math.abs(rig.focalLengthMm - mm) < 0.05));
    // Never overwrite what someone is typing.
    if (document.activeElement !== this.focalInput && rig.focalLengthMm !== this.renderedFocal) {
      this.renderedFocal = rig.focalLengthMm;
      this.focalInput.value = formatMm(rig.focalLengthMm);
    }
    this.sensorSelect.value = rig.frame.sensor.id;
    this.aspectSelect.value = rig.frame.aspect.id;
    const film = rig.frame.film;
    // Written only when they change: a text write each moving frame would also force a layout
    // when the guides measure the frame next.
    setText(this.frameNote, `Frame ${film.width.toFixed(2)} × ${film.height.toFixed(2)} mm of the sensor.`);
    setText(this.focusReadout, `Focus ${formatDistance(rig.focusDistanceM, this.unit)}`);
    this.unitInputs[0].checked = this.unit === 'm';
    this.unitInputs[1].checked = this.unit === 'ft';
  }

  /** A take keeps one frame format from start to end: the sensor and aspect lock while it runs. */
  setRecording(recording: boolean): void {
    this.sensorSelect.disabled = recording;
    this.aspectSelect.disabled = recording;
  }

  setFocusAidNote(note: string): void {
    if (!this.focusAid.disabled) this.focusAidNote.textContent = note;
  }

  setActiveView(name: string | null): void {
    this.activeView.textContent = name ? `Preset: ${name}` : 'Preset: none (camera moved)';
    this.activeView.dataset.active = String(name !== null);
  }

  setSavedViews(views: readonly SavedView[]): void {
    this.savedList.replaceChildren(
      ...views.map((view) =>
        h('li', { className: 'saved-view', attrs: { 'data-view-id': view.id } }, [
          h('button', {
            className: 'button button-small saved-view-go',
            attrs: { type: 'button', 'aria-label': `Go to view ${view.name}` },
            text: view.name,
            on: { click: () => this.hooks.goToView(view.id) },
          }),
          h('button', {
            className: 'button button-small saved-view-remove',
            attrs: { type: 'button', 'aria-label': `Delete view ${view.name}` },
            text: '×',
            on: { click: () => void this.hooks.removeView(view.id) },
          }),
        ]),
      ),
    );
    this.savedList.hidden = views.length === 0;
  }

  private setFocal(mm: number, announcement: string): void {
    this.rig.setFocalLength(mm);
    this.hooks.announce(announcement);
  }

  private commitFocalEntry(): void {
    const entry = parseFocalEntry(this.focalInput.value);
    if (!entry.ok) {
      this.focalInput.setAttribute('aria-invalid', 'true');
      this.hooks.announce(entry.message);
      return;
    }
    this.focalInput.removeAttribute('aria-invalid');
    this.renderedFocal = Number.NaN;
    this.focalInput.value = formatMm(entry.mm);
    this.setFocal(
      entry.mm,
      entry.clamped ? `Focal length ${formatMm(entry.mm)} mm, the lens's limit.` : `Focal length ${formatMm(entry.mm)} mm.`,
    );
  }

  private setUnit(unit: DistanceUnit): void {
    if (unit === this.unit) return;
    this.unit = unit;
    this.hooks.setDistanceUnit(unit);
    this.hooks.announce(unit === 'ft' ? 'Distances in feet.' : 'Distances in metres.');
    this.sync(true);
  }

  private async toggleFocusAid(): Promise<void> {
    const wanted = this.focusAid.checked;
    const ok = await this.hooks.setFocusAid(wanted);
    if (wanted && !ok) {
      this.focusAid.checked = false;
      this.focusAid.disabled = true;
      this.focusAidNote.textContent = 'The focus aid is not available on this graphics hardware.';
    }
    this.hooks.announce(ok || !wanted ? `Focus aid ${wanted ? 'on' : 'off'}.` : 'The focus aid is not available here.');
  }

  private async saveView(): Promise<void> {
    const name = normalizeViewName(this.viewName.value);
    if (!name) {
      this.viewName.setAttribute('aria-invalid', 'true');
      this.viewError.hidden = false;
      this.viewError.textContent = `Give the view a name (up to ${VIEW_NAME_MAX} characters).`;
      this.hooks.announce(this.viewError.textContent);
      return;
    }
    this.viewName.removeAttribute('aria-invalid');
    this.viewError.hidden = true;
    try {
      await this.hooks.saveView(name);
      this.viewName.value = '';
    } catch {
      this.viewError.hidden = false;
      this.viewError.textContent = 'The view could not be saved. Try again.';
      this.hooks.announce(this.viewError.textContent);
    }
  }
}

function formatMm(mm: number): string {
  return Number.isInteger(mm) ? String(mm) : mm.toFixed(1);
}
