import { ICONS, h, icon } from '../ui/dom';
import { madeItem } from '../ui/downloads.view';
import {
  CONTAINERS,
  DEFAULT_RENDER,
  RENDER_FRAME_RATES,
  RESOLUTIONS,
  resolutionPreset,
  type ContainerId,
  type RenderFrameRate,
  type ResolutionId,
} from './render-options';

export interface RenderChoice {
  fps: RenderFrameRate;
  resolution: ResolutionId;
  container: ContainerId;
}

/** Whether a resolution, container and frame rate can be rendered here. */
export type Availability = (resolution: ResolutionId, container: ContainerId, fps: RenderFrameRate) => boolean;

export interface RenderPanelHooks {
  start(choice: RenderChoice): void;
  cancel(): void;
  /** The section was first seen or focused: the moment to ask what this browser can encode. */
  shown(): void;
  /** Another source was chosen: describe it (its length, the sizes for its frame). */
  sourceChosen(): void;
}

/** One entry of the Source select, as the panel shows it. */
export interface SourceListing {
  id: string;
  name: string;
  /** What it holds now ("Take 2 · 2.0 s"), or null when it has no move (then `empty` says why). */
  description: string | null;
  empty: string;
}

/** A finished render as the panel lists it; `videoUrl` only when the page may offer downloads. */
export interface RenderListing {
  index: number;
  label: string;
  fileName: string;
  videoUrl: string | null;
}

/**
 * The perform panel's Render section: the move to render, frame rate, resolution and container,
 * Render and Cancel, a progress bar, and the renders made. Native selects and buttons with
 * visible labels; only the resolution and container pairs this browser can encode are offered.
 */
export class RenderPanel {
  /** The section's content, in order (the perform panel wraps it in its section). */
  readonly elements: HTMLElement[];
  private readonly sourceChoice = h('select', {
    className: 'select',
    attrs: { id: 'render-source-choice', 'aria-describedby': 'render-source' },
  });
  private readonly source = h('p', { className: 'readout', attrs: { id: 'render-source' } });
  /** The user's pick of the Source select; until then the first source that has a move. */
  private chosenSource: string | null = null;
  private readonly fps: HTMLSelectElement;
  private readonly resolution: HTMLSelectElement;
  private readonly container: HTMLSelectElement;
  private readonly startButton: HTMLButtonElement;
  private readonly cancelButton: HTMLButtonElement;
  private readonly progress = h('progress', {
    className: 'render-progress',
    attrs: { id: 'render-progress', max: 1, value: 0, 'aria-label': 'Render progress' },
  });
  private readonly progressText = h('span', { className: 'render-progress-text', attrs: { 'aria-hidden': 'true' } });
  private readonly progressRow = h('div', { className: 'render-progress-row', attrs: { hidden: true } }, [
    this.progress,
    this.progressText,
  ]);
  private readonly status = h('p', { className: 'hint', attrs: { id: 'render-status' } });
  private readonly list = h('ul', { className: 'take-list', attrs: { id: 'renders', 'aria-label': 'Renders' } });
  private available: Availability | null = null;
  private blocked: string | null = null;
  private message: { text: string; tone: 'info' | 'error' } = { text: '', tone: 'info' };
  private running = false;
  private seen = false;

  constructor(private readonly hooks: RenderPanelHooks) {
    this.sourceChoice.addEventListener('change', () => {
      this.chosenSource = this.sourceChoice.value;
      this.hooks.sourceChosen();
    });
    this.fps = select(
      'render-fps',
      RENDER_FRAME_RATES.map((r) => ({ value: String(r), text: `${r} fps` })),
    );
    this.fps.value = String(DEFAULT_RENDER.fps);
    this.fps.addEventListener('change', () => this.applyAvailability());
    this.resolution = select(
      'render-resolution',
      RESOLUTIONS.map((r) => ({ value: r.id, text: r.label })),
    );
    this.resolution.value = DEFAULT_RENDER.resolution;
    this.container = select(
      'render-container',
      CONTAINERS.map((c) => ({ value: c.id, text: c.label })),
    );
    this.container.value = DEFAULT_RENDER.container;
    this.container.addEventListener('change', () => this.applyAvailability());

    this.startButton = h(
      'button',
      {
        className: 'button',
        attrs: { type: 'button', id: 'render-start', 'aria-describedby': 'render-status' },
        on: { click: () => this.hooks.start(this.choice) },
      },
      [icon([...ICONS.camera]), 'Render'],
    );
    this.cancelButton = h(
      'button',
      {
        className: 'button',
        // "Cancel" fits beside Render in the narrowest panel; the name says what it cancels.
        attrs: { type: 'button', id: 'render-cancel', hidden: true, 'aria-label': 'Cancel render' },
        on: { click: () => this.hooks.cancel() },
      },
      [icon([...ICONS.stop]), 'Cancel'],
    );

    // Frame rate and format side by side; the resolution, whose options name their pixel size,
    // gets the panel's whole width (250 px at the smallest frame).
    const fields = h('div', { className: 'render-fields' }, [
      field('render-fps', 'Frame rate', this.fps),
      field('render-container', 'Format', this.container),
      field('render-resolution', 'Resolution', this.resolution),
    ]);
    this.elements = [
      field('render-source-choice', 'Source', this.sourceChoice),
      this.source,
      fields,
      h('div', { className: 'render-actions' }, [this.startButton, this.cancelButton]),
      this.progressRow,
      this.status,
      this.list,
    ];
    // What the browser can encode is asked once the section is seen (or reached by keyboard):
    // the encoder's chunk stays off the network until someone may render.
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.markShown(observer);
    });
    observer.observe(fields);
    for (const element of this.elements) element.addEventListener('focusin', () => this.markShown(observer));
    this.setAvailability(null);
  }

  get choice(): RenderChoice {
    return {
      fps: Number(this.fps.value) as RenderFrameRate,
      resolution: this.resolution.value as ResolutionId,
      container: this.container.value as ContainerId,
    };
  }

  /** Which source Render renders: the one chosen, else the first that has a move. */
  get sourceId(): string {
    return this.sourceChoice.value;
  }

  /** The sources and what each holds now; the readout describes the one selected. */
  setSources(sources: readonly SourceListing[]): void {
    const ids = sources.map((s) => s.id).join();
    if (ids !== Array.from(this.sourceChoice.options, (o) => o.value).join()) {
      this.sourceChoice.replaceChildren(...sources.map((s) => h('option', { attrs: { value: s.id }, text: s.name })));
    }
    const chosen = sources.find((s) => s.id === this.chosenSource) ?? sources.find((s) => s.description !== null) ?? sources[0];
    if (chosen) this.sourceChoice.value = chosen.id;
    this.source.textContent = chosen ? (chosen.description ?? chosen.empty) : 'Nothing can be rendered here.';
    this.source.dataset.empty = String(!chosen || chosen.description === null);
    this.update();
  }

  /** Each resolution's pixel size for the frame that will be rendered. */
  setSizes(sizes: Record<ResolutionId, { width: number; height: number }>): void {
    for (const option of Array.from(this.resolution.options)) {
      const preset = resolutionPreset(option.value as ResolutionId);
      const size = sizes[preset.id];
      option.dataset.size = `${size.width} × ${size.height}`;
    }
    this.applyAvailability();
  }

  /** What can be encoded here; null while that is being found out. */
  setAvailability(available: Availability | null): void {
    this.available = available;
    this.applyAvailability();
  }

  /** Why nothing can be rendered now (a take is recording), or null. */
  setBlocked(reason: string | null): void {
    this.blocked = reason;
    this.update();
  }

  setRunning(running: boolean): void {
    const hadFocus = this.running ? this.cancelButton.matches(':focus') : this.startButton.matches(':focus');
    this.running = running;
    this.cancelButton.hidden = !running;
    this.progressRow.hidden = !running;
    this.update();
    // The pressed button disappears or turns off: keyboard focus moves to its counterpart.
    if (hadFocus) (running ? this.cancelButton : this.startButton).focus();
  }

  setProgress(done: number, total: number): void {
    this.progress.max = Math.max(1, total);
    this.progress.value = done;
    const text = `Frame ${done} of ${total}`;
    this.progress.setAttribute('aria-valuetext', text);
    this.progressText.textContent = text;
  }

  /** The last word on a render (done, cancelled, refused, failed); blocking reasons take precedence while idle. */
  setMessage(text: string, tone: 'info' | 'error' = 'info'): void {
    this.message = { text, tone };
    this.update();
  }

  addRender(entry: RenderListing): void {
    const item = madeItem(
      { 'data-render': entry.index },
      `Render ${entry.index}`,
      entry.label,
      entry.videoUrl
        ? [{ href: entry.videoUrl, fileName: entry.fileName, text: 'Video', label: `Download render ${entry.index} (${entry.fileName})` }]
        : null,
      'Handed to the page embedding the studio, which offers it for download.',
    );
    this.list.prepend(item);
  }

  private markShown(observer: IntersectionObserver): void {
    if (this.seen) return;
    this.seen = true;
    observer.disconnect();
    this.hooks.shown();
  }

  private applyAvailability(): void {
    const container = this.container.value as ContainerId;
    const fps = Number(this.fps.value) as RenderFrameRate;
    for (const option of Array.from(this.resolution.options)) {
      const preset = resolutionPreset(option.value as ResolutionId);
      const ok = this.available ? this.available(preset.id, container, fps) : true;
      option.disabled = !ok;
      const size = option.dataset.size ? ` (${option.dataset.size})` : '';
      option.textContent = `${preset.label}${size}${ok ? '' : ', not available here'}`;
    }
    const current = this.resolution.selectedOptions[0];
    if (current?.disabled) {
      // The best that is offered, the highest below the one chosen first.
      const fallback = Array.from(this.resolution.options)
        .filter((o) => !o.disabled)
        .pop();
      if (fallback) this.resolution.value = fallback.value;
    }
    for (const option of Array.from(this.container.options)) {
      const id = option.value as ContainerId;
      const ok = this.available ? RESOLUTIONS.some((r) => this.available!(r.id, id, fps)) : true;
      option.disabled = !ok;
      option.textContent = `${CONTAINERS.find((c) => c.id === id)!.label}${ok ? '' : ', not available here'}`;
    }
    this.update();
  }

  private update(): void {
    const noSource = this.source.dataset.empty !== 'false';
    const checking = this.seen && this.available === null;
    const nothingEncodable = this.available !== null && Array.from(this.resolution.options).every((o) => o.disabled);
    this.startButton.disabled = this.running || this.blocked !== null || noSource || checking || nothingEncodable;
    for (const input of [this.sourceChoice, this.fps, this.resolution, this.container]) input.disabled = this.running;
    const shown = this.running
      ? this.message
      : this.blocked
        ? { text: this.blocked, tone: 'info' as const }
        : nothingEncodable
          ? { text: 'This browser cannot encode video here (no WebCodecs H.264 or VP9 encoder).', tone: 'error' as const }
          : checking
            ? { text: 'Checking what this browser can encode…', tone: 'info' as const }
            : this.message;
    this.status.textContent = shown.text;
    this.status.dataset.tone = shown.tone;
  }
}

function select(id: string, options: { value: string; text: string }[]): HTMLSelectElement {
  return h(
    'select',
    { className: 'select', attrs: { id } },
    options.map((o) => h('option', { attrs: { value: o.value }, text: o.text })),
  );
}

function field(id: string, label: string, input: HTMLSelectElement): HTMLElement {
  return h('div', { className: 'field' }, [h('label', { className: 'field-label', attrs: { for: id }, text: label }), input]);
}
