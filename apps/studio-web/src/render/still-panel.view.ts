import { ICONS, h, icon } from '../ui/dom';
import { madeItem } from '../ui/downloads.view';
import { DEFAULT_STILL_RESOLUTION, STILL_RESOLUTIONS, type StillResolutionId } from './still-options';

export interface StillPanelHooks {
  take(resolution: StillResolutionId): void;
}

/** A finished still as the panel lists it; `url` only when the page may offer downloads. */
export interface StillListing {
  index: number;
  label: string;
  fileName: string;
  url: string | null;
}

/**
 * The Render section's still: a size (the render's classes and 8K, each with its pixel size for
 * the view's aspect; those the GPU cannot draw are offered disabled), "Take still", its status
 * and the stills made. Native controls with visible labels.
 */
export class StillPanel {
  readonly elements: HTMLElement[];
  private readonly resolution = h(
    'select',
    { className: 'select', attrs: { id: 'still-resolution' } },
    STILL_RESOLUTIONS.map((r) => h('option', { attrs: { value: r.id }, text: r.label })),
  );
  private readonly button: HTMLButtonElement;
  private readonly status = h('p', { className: 'hint', attrs: { id: 'still-status' } });
  private readonly list = h('ul', { className: 'take-list', attrs: { id: 'stills', 'aria-label': 'Stills' } });
  private blocked: string | null = null;
  private busy = false;
  private message: { text: string; tone: 'info' | 'error' } = { text: '', tone: 'info' };
  /** Whether the user picked a size (then a larger one becoming possible does not override it). */
  private picked = false;

  constructor(private readonly hooks: StillPanelHooks) {
    this.resolution.value = DEFAULT_STILL_RESOLUTION;
    this.resolution.addEventListener('change', () => (this.picked = true));
    this.button = h(
      'button',
      {
        className: 'button',
        attrs: { type: 'button', id: 'still-take', 'aria-describedby': 'still-status' },
        on: { click: () => this.hooks.take(this.resolution.value as StillResolutionId) },
      },
      [icon([...ICONS.camera]), 'Take still'],
    );
    this.elements = [
      h('div', { className: 'field' }, [
        h('label', { className: 'field-label', attrs: { for: 'still-resolution' }, text: 'Still size (PNG)' }),
        this.resolution,
      ]),
      h('div', { className: 'render-actions' }, [this.button]),
      this.status,
      this.list,
    ];
    this.update();
  }

  /** Each class's pixel size for the view's aspect, and whether this device can draw it. */
  setSizes(sizes: Record<StillResolutionId, { width: number; height: number; fits: boolean }>): void {
    for (const option of Array.from(this.resolution.options)) {
      const preset = STILL_RESOLUTIONS.find((r) => r.id === option.value)!;
      const size = sizes[preset.id];
      option.disabled = !size.fits;
      option.textContent = `${preset.label} (${size.width} × ${size.height})${size.fits ? '' : ', not available here'}`;
    }
    const fitting = Array.from(this.resolution.options).filter((o) => !o.disabled);
    const current = this.resolution.selectedOptions[0];
    if (!this.picked) {
      // The default (4K) where the device draws it, else the largest it does.
      const next = fitting.find((o) => o.value === DEFAULT_STILL_RESOLUTION) ?? fitting[fitting.length - 1];
      if (next) this.resolution.value = next.value;
    } else if (current?.disabled && fitting.length > 0) {
      this.resolution.value = fitting[fitting.length - 1].value;
    }
    this.update();
  }

  /** Why no still can be taken now (a take records, a render runs), or null. */
  setBlocked(reason: string | null): void {
    // Asked every frame: only a change touches the page.
    if (reason === this.blocked) return;
    this.blocked = reason;
    this.update();
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.update();
  }

  setMessage(text: string, tone: 'info' | 'error' = 'info'): void {
    this.message = { text, tone };
    this.update();
  }

  addStill(entry: StillListing): void {
    this.list.prepend(
      madeItem(
        { 'data-still': entry.index },
        `Still ${entry.index}`,
        entry.label,
        entry.url
          ? [{ href: entry.url, fileName: entry.fileName, text: 'PNG', label: `Download still ${entry.index} (${entry.fileName})` }]
          : null,
        'Handed to the page embedding the studio, which offers it for download.',
      ),
    );
  }

  private update(): void {
    const none = Array.from(this.resolution.options).every((o) => o.disabled);
    // Disabled while busy, but kept focusable for a keyboard user: aria-disabled, not disabled.
    const unavailable = this.busy || this.blocked !== null || none;
    this.button.setAttribute('aria-disabled', String(unavailable));
    this.resolution.disabled = this.busy;
    const shown = this.blocked
      ? { text: this.blocked, tone: 'info' as const }
      : none
        ? { text: "This device's graphics cannot draw a 1080p still.", tone: 'error' as const }
        : this.message;
    this.status.textContent = shown.text;
    this.status.dataset.tone = shown.tone;
  }
}
