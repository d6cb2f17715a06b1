import { ICONS, h, icon } from '../../ui/dom';
import { EASINGS, type CameraPathKeyframe, type KeyframeEasing } from '../../model/camera-path';
import { seconds, type TimelineState } from './timeline';

export interface TimelinePanelHooks {
  togglePlay(): void;
  stop(): void;
  seek(ms: number): void;
  addKeyframe(): void;
  goToKeyframe(index: number): void;
  updateSelected(): void;
  removeSelected(): void;
  /** Returns the refusal's reason, or null when the keyframe moved. */
  retimeSelected(ms: number): string | null;
  setEasing(easing: KeyframeEasing): void;
  setSmoothing(value: number): void;
  setDuration(ms: number): void;
  editLastTake(): void;
  clear(): void;
}

/**
 * What the panel shows (the timeline's state, its keyframes as the timeline holds them): the
 * workflow hands it over every frame and the panel redraws what changed.
 */
export type TimelineViewState = Omit<TimelineState, 'keyframes' | 'savedMoves'> & {
  /** Timeline.revision: the move itself changed. */
  revision: number;
  keyframes: readonly CameraPathKeyframe[];
  /** The newest take's number, or null before the first. */
  lastTake: number | null;
};

export const EASING_LABELS: Record<KeyframeEasing, string> = {
  linear: 'Linear',
  'ease-in': 'Ease in',
  'ease-out': 'Ease out',
  'ease-in-out': 'Ease in and out',
  hold: 'Hold (cut)',
};

const PLAY_ICON = ['M8 5v14l11-7z'];
const PAUSE_ICON = ['M7 5h3.5v14H7z', 'M13.5 5H17v14h-3.5z'];
const KEYFRAME_ICON = ['M12 4l8 8-8 8-8-8z'];

/**
 * The timeline in the perform panel's "Camera move" section: play, pause and stop, the playhead
 * as a number and as a scrub bar with the keyframes marked on it, the keyframe list (each one
 * goes to its pose), the selected keyframe's time, easing, update and delete, the smoothing and
 * the duration, and "Edit last take's path". Native controls with visible labels throughout;
 * the list is the accessible form of the marks on the bar, which are decoration.
 */
export class TimelinePanel {
  readonly element: HTMLElement;
  private readonly playButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly playhead: HTMLInputElement;
  private readonly durationLabel = h('span', { className: 'timeline-total', attrs: { 'aria-hidden': 'true' } });
  private readonly scrub: HTMLInputElement;
  private readonly ticks = h('div', { className: 'timeline-ticks', attrs: { 'aria-hidden': 'true' } });
  private readonly addButton: HTMLButtonElement;
  private readonly clearButton: HTMLButtonElement;
  private readonly list = h('ol', { className: 'keyframe-list', attrs: { id: 'keyframes', 'aria-label': 'Keyframes' } });
  private readonly empty = h('p', { className: 'empty', text: 'No keyframes yet: frame a shot, then add a keyframe at the playhead.' });
  private readonly editor: HTMLFieldSetElement;
  private readonly editorLegend = h('legend', { className: 'field-label' });
  private readonly keyTime: HTMLInputElement;
  private readonly keyTimeError = h('p', { className: 'field-error', attrs: { id: 'keyframe-time-error', hidden: true } });
  private readonly easing: HTMLSelectElement;
  private readonly updateButton: HTMLButtonElement;
  private readonly deleteButton: HTMLButtonElement;
  private readonly smoothing: HTMLInputElement;
  private readonly smoothingValue = h('span', { className: 'value', attrs: { 'aria-hidden': 'true' } });
  private readonly duration: HTMLInputElement;
  private readonly fromTake: HTMLButtonElement;
  private readonly locked = h('p', {
    className: 'hint',
    attrs: { id: 'timeline-locked', hidden: true },
    text: 'While a take records, the move can play but not change.',
  });
  private shown: TimelineViewState | null = null;
  /** A number was just committed: the boxes show what was applied, even the one with focus. */
  private rewriteNumbers = false;

  constructor(private readonly hooks: TimelinePanelHooks) {
    this.playButton = h('button', {
      className: 'button button-small timeline-play',
      attrs: { type: 'button', id: 'timeline-play', 'aria-keyshortcuts': 'L' },
      on: { click: () => this.hooks.togglePlay() },
    });
    this.stopButton = h(
      'button',
      {
        className: 'button button-small',
        attrs: { type: 'button', id: 'timeline-stop', 'aria-label': 'Stop and go back to the start', title: 'Stop (back to the start)' },
        on: { click: () => this.hooks.stop() },
      },
      [icon([...ICONS.stop], 'icon icon-solid')],
    );
    this.playhead = h('input', {
      className: 'text-input timeline-number',
      attrs: { type: 'number', id: 'timeline-time', min: 0, step: 0.01, inputmode: 'decimal' },
    });
    this.playhead.addEventListener('change', () =>
      this.commitNumber(this.playhead, (ms) => {
        this.hooks.seek(ms);
        return true;
      }),
    );
    this.scrub = h('input', {
      className: 'slider timeline-scrub',
      attrs: { type: 'range', id: 'timeline-scrub', min: 0, step: 10, 'aria-label': 'Scrub the camera move' },
    });
    this.scrub.addEventListener('input', () => this.hooks.seek(Number(this.scrub.value)));

    this.addButton = h(
      'button',
      {
        className: 'button button-small keyframe-add',
        attrs: { type: 'button', id: 'keyframe-add', 'aria-label': 'Add keyframe at playhead', 'aria-keyshortcuts': 'I' },
        on: { click: () => this.hooks.addKeyframe() },
      },
      [icon(KEYFRAME_ICON), 'Add keyframe'],
    );
    this.clearButton = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'keyframes-clear', 'aria-label': 'Remove every keyframe' },
      text: 'Clear',
      on: { click: () => this.hooks.clear() },
    });

    this.keyTime = h('input', {
      className: 'text-input timeline-number',
      attrs: { type: 'number', id: 'keyframe-time', min: 0, step: 0.01, inputmode: 'decimal', 'aria-describedby': 'keyframe-time-error' },
    });
    this.keyTime.addEventListener('change', () =>
      this.commitNumber(this.keyTime, (ms) => {
        const refusal = this.hooks.retimeSelected(ms);
        this.keyTimeError.hidden = refusal === null;
        this.keyTimeError.textContent = refusal ?? '';
        if (refusal) this.keyTime.setAttribute('aria-invalid', 'true');
        else this.keyTime.removeAttribute('aria-invalid');
        return refusal === null;
      }),
    );
    this.easing = h(
      'select',
      { className: 'select', attrs: { id: 'keyframe-easing' } },
      EASINGS.map((e) => h('option', { attrs: { value: e }, text: EASING_LABELS[e] })),
    );
    this.easing.addEventListener('change', () => this.hooks.setEasing(this.easing.value as KeyframeEasing));
    this.updateButton = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'keyframe-update' },
      text: 'Update to camera',
      on: { click: () => this.hooks.updateSelected() },
    });
    this.deleteButton = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'keyframe-delete' },
      text: 'Delete',
      on: { click: () => this.hooks.removeSelected() },
    });
    this.editor = h('fieldset', { className: 'keyframe-editor', attrs: { id: 'keyframe-editor', hidden: true } }, [
      this.editorLegend,
      h('div', { className: 'keyframe-fields' }, [
        h('div', { className: 'field' }, [
          h('label', { className: 'field-label', attrs: { for: 'keyframe-time' }, text: 'Time (s)' }),
          this.keyTime,
        ]),
        h('div', { className: 'field' }, [
          h('label', { className: 'field-label', attrs: { for: 'keyframe-easing' }, text: 'Easing to the next' }),
          this.easing,
        ]),
      ]),
      this.keyTimeError,
      h('div', { className: 'timeline-row' }, [this.updateButton, this.deleteButton]),
    ]);

    this.smoothing = h('input', { className: 'slider', attrs: { type: 'range', id: 'timeline-smoothing', min: 0, max: 100, step: 5 } });
    this.smoothing.addEventListener('input', () => this.hooks.setSmoothing(Number(this.smoothing.value) / 100));
    this.duration = h('input', {
      className: 'text-input timeline-number',
      attrs: { type: 'number', id: 'timeline-duration', min: 0.1, step: 0.1, inputmode: 'decimal' },
    });
    this.duration.addEventListener('change', () =>
      this.commitNumber(this.duration, (ms) => {
        this.hooks.setDuration(ms);
        return true;
      }),
    );
    this.fromTake = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'timeline-from-take', 'aria-describedby': 'timeline-from-take-hint' },
      text: "Edit last take's path",
      on: { click: () => this.hooks.editLastTake() },
    });

    this.element = h('div', { className: 'timeline', attrs: { id: 'timeline' } }, [
      h('div', { className: 'timeline-transport' }, [
        this.playButton,
        this.stopButton,
        h('span', { className: 'timeline-clock' }, [
          h('label', { className: 'sr-only', attrs: { for: 'timeline-time' }, text: 'Playhead (s)' }),
          this.playhead,
          this.durationLabel,
        ]),
      ]),
      h('div', { className: 'timeline-track' }, [this.ticks, this.scrub]),
      h('div', { className: 'timeline-row' }, [this.addButton, this.clearButton]),
      this.empty,
      this.list,
      this.editor,
      h('div', { className: 'field' }, [
        h('div', { className: 'field-row' }, [
          h('label', { className: 'field-label', attrs: { for: 'timeline-smoothing' }, text: 'Smoothing' }),
          this.smoothingValue,
        ]),
        this.smoothing,
      ]),
      h('div', { className: 'field field-inline' }, [
        h('label', { className: 'field-label', attrs: { for: 'timeline-duration' }, text: 'Duration (s)' }),
        this.duration,
      ]),
      this.fromTake,
      h('p', {
        className: 'hint',
        attrs: { id: 'timeline-from-take-hint' },
        text: 'Turns the newest take into keyframes you can change.',
      }),
      this.locked,
    ]);
  }

  /** Called every frame: redraws only what changed since the last call. */
  sync(state: TimelineViewState): void {
    const before = this.shown;
    this.shown = state;
    const structure =
      !before ||
      before.revision !== state.revision ||
      before.selected !== state.selected ||
      before.editable !== state.editable ||
      before.lastTake !== state.lastTake;
    if (structure) this.renderStructure(state, before);
    if (structure || before.playheadMs !== state.playheadMs || before.playing !== state.playing) this.renderPlayhead(state);
    this.rewriteNumbers = false;
  }

  private renderStructure(state: TimelineViewState, before: TimelineViewState | null): void {
    const { keyframes, selected, editable, durationMs } = state;
    if (!before || before.revision !== state.revision || before.selected !== selected) this.renderList(state, before);
    this.ticks.replaceChildren(
      ...keyframes.map((k, i) => {
        const tick = h('span', { className: 'timeline-tick', attrs: { 'data-selected': String(i === selected) } });
        tick.style.left = `${(k.t / durationMs) * 100}%`;
        return tick;
      }),
    );
    this.empty.hidden = keyframes.length > 0;
    this.list.hidden = keyframes.length === 0;

    const key = selected === null ? null : keyframes[selected];
    this.editor.hidden = key === null || key === undefined;
    if (key) {
      this.editorLegend.textContent = `Keyframe ${selected! + 1}`;
      const newSelection = before?.selected !== selected;
      if (newSelection) {
        this.keyTime.removeAttribute('aria-invalid');
        this.keyTimeError.hidden = true;
      }
      if (newSelection || this.mayRewrite(this.keyTime)) this.keyTime.value = (key.t / 1000).toFixed(2);
      this.keyTime.max = String(durationMs / 1000);
      this.easing.value = key.easing;
    }

    const smoothing = Math.round(state.smoothing * 100);
    if (this.smoothing.value !== String(smoothing)) this.smoothing.value = String(smoothing);
    this.smoothing.setAttribute('aria-valuetext', `${smoothing} %`);
    this.smoothingValue.textContent = `${smoothing} %`;
    if (this.mayRewrite(this.duration)) this.duration.value = (durationMs / 1000).toFixed(2);
    this.scrub.max = String(durationMs);
    this.playhead.max = String(durationMs / 1000);
    this.durationLabel.textContent = `/ ${seconds(durationMs)}`;

    for (const control of [
      this.addButton,
      this.clearButton,
      this.keyTime,
      this.easing,
      this.updateButton,
      this.deleteButton,
      this.smoothing,
      this.duration,
    ]) {
      control.disabled = !editable;
    }
    this.clearButton.disabled = !editable || keyframes.length === 0;
    this.fromTake.disabled = !editable || state.lastTake === null;
    this.fromTake.textContent = state.lastTake === null ? "Edit last take's path" : `Edit take ${state.lastTake}'s path`;
    this.locked.hidden = editable;
  }

  private renderList(state: TimelineViewState, before: TimelineViewState | null): void {
    const focused = this.list.contains(document.activeElement) ? Number((document.activeElement as HTMLElement).dataset.index) : null;
    if (before && before.revision === state.revision) {
      // Only the selection moved: no rebuild, so focus and scroll stay where they are.
      this.list.querySelectorAll<HTMLButtonElement>('button[data-index]').forEach((b) => {
        b.setAttribute('aria-pressed', String(Number(b.dataset.index) === state.selected));
      });
      return;
    }
    this.list.replaceChildren(
      ...state.keyframes.map((k, i) =>
        h('li', { className: 'keyframe-item' }, [
          h(
            'button',
            {
              className: 'button button-small keyframe-go',
              attrs: {
                type: 'button',
                'data-index': i,
                'aria-pressed': String(i === state.selected),
                'aria-label': `Keyframe ${i + 1} at ${seconds(k.t)}, ${EASING_LABELS[k.easing].toLowerCase()}`,
              },
              on: { click: () => this.hooks.goToKeyframe(i) },
            },
            [
              icon(KEYFRAME_ICON),
              h('span', { className: 'keyframe-time', text: seconds(k.t) }),
              h('span', { className: 'keyframe-meta', text: `${Math.round(k.focalLengthMm)} mm · ${EASING_LABELS[k.easing]}` }),
            ],
          ),
        ]),
      ),
    );
    if (focused !== null && state.keyframes.length > 0) {
      const index = Math.min(Number.isNaN(focused) ? 0 : focused, state.keyframes.length - 1);
      this.list.querySelector<HTMLButtonElement>(`button[data-index="${index}"]`)?.focus({ preventScroll: true });
    }
  }

  private renderPlayhead(state: TimelineViewState): void {
    const { playheadMs, durationMs, playing } = state;
    if (this.scrub.value !== String(Math.round(playheadMs))) this.scrub.value = String(Math.round(playheadMs));
    this.scrub.setAttribute('aria-valuetext', `${seconds(playheadMs)} of ${seconds(durationMs)}`);
    if (this.mayRewrite(this.playhead)) this.playhead.value = (playheadMs / 1000).toFixed(2);
    const label = playing ? 'Pause' : 'Play';
    if (this.playButton.dataset.state !== label) {
      this.playButton.dataset.state = label;
      this.playButton.setAttribute('aria-label', `${label} the camera move`);
      this.playButton.replaceChildren(icon(playing ? PAUSE_ICON : PLAY_ICON, 'icon icon-solid'), label);
    }
    const empty = state.keyframes.length === 0;
    this.playButton.disabled = empty;
    this.stopButton.disabled = empty;
  }

  /** Reads a number of seconds from a box; `apply` says whether it was taken. */
  private commitNumber(input: HTMLInputElement, apply: (ms: number) => boolean): void {
    const value = Number(input.value);
    const isNumber = input.value.trim() !== '' && Number.isFinite(value);
    // A refused number stays for the user to correct (the refusal says why).
    if (isNumber && !apply(Math.round(value * 1000))) return;
    // On the next frame the boxes show what was applied (a clamped duration or playhead), or the
    // value again in place of what was not a number.
    this.rewriteNumbers = true;
    this.shown = this.shown && { ...this.shown, revision: -1 };
  }

  /** A box the user is typing in keeps their text, unless a number was just committed. */
  private mayRewrite(input: HTMLInputElement): boolean {
    return this.rewriteNumbers || document.activeElement !== input;
  }
}
