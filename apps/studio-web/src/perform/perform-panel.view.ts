import type { CameraPreset } from '../api/studio-api.types';
import { ICONS, h, icon, isFramed } from '../ui/dom';
import { madeItem } from '../ui/downloads.view';
import { formatBytes } from '../ui/format';
import type { CameraRig, NavigationMode } from '../viewport/camera-rig';
import {
  FOCAL_MAX_MM,
  FOCAL_MIN_MM,
  F_STOPS,
  ROLL_LIMIT_DEG,
  fieldOfView,
  focusToSlider,
  formatDistance,
  formatFNumber,
  sliderToFocus,
  type DistanceUnit,
} from '../model/lens';
import type { GamepadStatus } from './gamepad.input';
import type { SpaceMouseStatus } from './space-mouse.input';
import type { Take } from './take.recorder';

export interface PerformPanelHooks {
  setNavigation(mode: NavigationMode): void;
  goToPreset(index: number): void;
  setDepthOfField(enabled: boolean): Promise<boolean>;
  toggleRecording(): void;
  dropMarker(): void;
  connectSpaceMouse(): Promise<void>;
}

/** Controls other views add to the panel's sections (viewport/lens presets, framing, views). */
export interface PanelExtras {
  camera?: HTMLElement[];
  /** After the focal length slider. */
  lens?: HTMLElement[];
  /** After the focus distance slider. */
  focus?: HTMLElement[];
  framing?: HTMLElement[];
  /** The "Camera move" section: the timeline. */
  move?: HTMLElement[];
  /** The Render section's content (render/render-panel.view.ts), after Recording. */
  render?: HTMLElement[];
}

export interface TakeLinks {
  take: Take;
  videoUrl: string;
  pathUrl: string;
}

/**
 * The perform workflow's controls: navigation mode, presets, the lens (focal length with its
 * field of view, focus, aperture, depth of field, roll), recording with its takes, and the
 * controllers. Every control is a native element with a visible label; the rig stays the one
 * source of truth and the panel re-reads it whenever it changes, whatever moved it.
 */
export class PerformPanel {
  readonly element: HTMLElement;
  private readonly presetGroup = h('div', {
    className: 'preset-grid',
    attrs: { role: 'group', 'aria-label': 'Camera presets', id: 'camera-presets' },
  });
  private readonly navOrbit: HTMLInputElement;
  private readonly navFly: HTMLInputElement;
  private readonly focal: HTMLInputElement;
  // Value read-outs are visual only: each slider already speaks its value via aria-valuetext,
  // and an <output> would be a live region chattering through every gamepad zoom.
  private readonly focalValue = h('span', { className: 'value', attrs: { id: 'focal-length-value', 'aria-hidden': 'true' } });
  private readonly fovReadout = h('p', { className: 'readout', attrs: { id: 'fov-readout' } });
  private readonly dofToggle: HTMLInputElement;
  private readonly dofNote = h('p', { className: 'hint', attrs: { id: 'dof-note', hidden: true } });
  private readonly focus: HTMLInputElement;
  private readonly focusValue = h('span', { className: 'value', attrs: { 'aria-hidden': 'true' } });
  private readonly aperture: HTMLInputElement;
  private readonly apertureValue = h('span', { className: 'value', attrs: { 'aria-hidden': 'true' } });
  private readonly roll: HTMLInputElement;
  private readonly rollValue = h('span', { className: 'value', attrs: { 'aria-hidden': 'true' } });
  private readonly recordButton: HTMLButtonElement;
  private readonly markerButton: HTMLButtonElement;
  private readonly timer = h('span', {
    className: 'record-timer',
    attrs: { id: 'record-timer', role: 'timer', 'aria-label': 'Recording time' },
    text: '0:00',
  });
  private readonly takesList = h('ul', { className: 'take-list', attrs: { id: 'recordings', 'aria-label': 'Recordings' } });
  private readonly takesEmpty = h('p', { className: 'empty', text: 'Takes you record appear here, with their camera paths.' });
  private readonly takesHint = h('p', {
    className: 'hint',
    attrs: { hidden: true },
    text: 'Each take is also handed to the page embedding the studio, which offers it for download.',
  });
  /**
   * Framed, the partner's sandbox (no allow-downloads) refuses any download started here: takes
   * are listed without links, and the hint says where they went. Opened on its own, they are links.
   */
  private readonly framed = isFramed();
  private readonly gamepadStatus = h('p', { className: 'device-status', attrs: { id: 'gamepad-status' } });
  private readonly spaceMouseButton: HTMLButtonElement;
  private readonly spaceMouseStatus = h('p', { className: 'device-status', attrs: { id: 'spacemouse-status' } });
  /** The record button and its timer: shown in the viewport toolbar, reachable in any frame size. */
  readonly recordRow: HTMLElement;
  private renderedRevision = -1;
  private unit: DistanceUnit = 'm';

  constructor(
    private readonly rig: CameraRig,
    private readonly hooks: PerformPanelHooks,
    recordingSupported: boolean,
    extras: PanelExtras = {},
  ) {
    this.navOrbit = radio('navigation', 'nav-orbit', 'orbit');
    this.navFly = radio('navigation', 'nav-fly', 'fly');
    for (const input of [this.navOrbit, this.navFly]) {
      input.addEventListener('change', () => input.checked && this.hooks.setNavigation(input.value as NavigationMode));
    }

    this.focal = slider('focal-length', FOCAL_MIN_MM, FOCAL_MAX_MM, 1, 'fov-readout');
    this.focal.addEventListener('input', () => this.rig.setFocalLength(Number(this.focal.value)));

    this.dofToggle = h('input', { attrs: { type: 'checkbox', id: 'dof-toggle', 'aria-describedby': 'dof-note' } });
    this.dofToggle.addEventListener('change', () => void this.toggleDepthOfField());

    this.focus = slider('focus-distance', 0, 1000, 1);
    this.focus.addEventListener('input', () => this.rig.setFocusDistance(sliderToFocus(Number(this.focus.value))));
    this.aperture = slider('aperture', 0, F_STOPS.length - 1, 1);
    this.aperture.addEventListener('input', () => this.rig.setFNumber(F_STOPS[Number(this.aperture.value)]));
    this.roll = slider('roll', -ROLL_LIMIT_DEG, ROLL_LIMIT_DEG, 0.5);
    this.roll.addEventListener('input', () => this.rig.setRollDeg(Number(this.roll.value)));
    const level = h('button', {
      className: 'button button-small',
      attrs: { type: 'button', id: 'roll-reset', 'aria-label': 'Level the horizon (roll 0°)' },
      text: 'Level',
      on: { click: () => this.rig.setRollDeg(0) },
    });

    this.recordButton = h('button', {
      className: 'button record-button',
      attrs: { type: 'button', id: 'record-toggle', 'aria-pressed': 'false', disabled: !recordingSupported },
      on: { click: () => this.hooks.toggleRecording() },
    });
    this.markerButton = h(
      'button',
      {
        className: 'button',
        attrs: { type: 'button', id: 'marker-drop', 'aria-disabled': 'true' },
        on: { click: () => this.hooks.dropMarker() },
      },
      [icon([...ICONS.marker]), 'Drop marker'],
    );

    this.spaceMouseButton = h(
      'button',
      {
        className: 'button',
        attrs: { type: 'button', id: 'spacemouse-connect' },
        on: {
          click: () => void this.connectSpaceMouse(),
        },
      },
      [icon([...ICONS.gamepad]), 'Connect 3D mouse'],
    );

    const navigation = h('fieldset', { className: 'segmented' }, [
      h('legend', { className: 'field-label', text: 'Navigation' }),
      h('div', { className: 'segmented-options' }, [
        h('label', { className: 'segment', attrs: { for: 'nav-orbit' } }, [this.navOrbit, h('span', { text: 'Orbit' })]),
        h('label', { className: 'segment', attrs: { for: 'nav-fly' } }, [this.navFly, h('span', { text: 'Fly' })]),
      ]),
    ]);

    this.recordRow = h('div', { className: 'record-row' }, [this.recordButton, this.timer]);
    this.element = h('div', { className: 'panel-stack' }, [
      section('Camera', [
        navigation,
        h('p', { className: 'field-label', text: 'Presets', attrs: { 'aria-hidden': 'true' } }),
        this.presetGroup,
        ...(extras.camera ?? []),
      ]),
      section('Lens', [
        field('focal-length', 'Focal length', this.focal, this.focalValue),
        ...(extras.lens ?? []),
        this.fovReadout,
        h('label', { className: 'checkbox', attrs: { for: 'dof-toggle' } }, [this.dofToggle, h('span', { text: 'Depth of field' })]),
        this.dofNote,
        field('focus-distance', 'Focus distance', this.focus, this.focusValue),
        ...(extras.focus ?? []),
        field('aperture', 'Aperture', this.aperture, this.apertureValue),
        field('roll', 'Roll', this.roll, this.rollValue, level),
      ]),
      extras.framing ? section('Framing', extras.framing) : null,
      extras.move ? section('Camera move', extras.move) : null,
      section('Recording', [
        this.markerButton,
        recordingSupported ? null : h('p', { className: 'hint', text: 'This browser cannot record video from the viewport.' }),
        this.takesEmpty,
        this.takesList,
        this.takesHint,
      ]),
      extras.render ? section('Render', extras.render) : null,
      section('Controllers', [this.gamepadStatus, this.spaceMouseButton, this.spaceMouseStatus]),
    ]);

    this.setRecording(false, 0);
    this.setGamepad({ connected: false, id: null });
    this.setSpaceMouse({ supported: navigator.hid !== undefined, connected: false, name: null });
    this.sync();
  }

  setPresets(presets: readonly CameraPreset[]): void {
    this.presetGroup.replaceChildren(
      ...presets.map((preset, index) =>
        h('button', {
          className: 'button preset-button',
          attrs: { type: 'button', 'data-preset-id': preset.id, title: `${preset.name} (${index + 1})` },
          text: preset.name,
          on: { click: () => this.hooks.goToPreset(index) },
        }),
      ),
    );
  }

  set distanceUnit(unit: DistanceUnit) {
    this.unit = unit;
    this.renderedRevision = -1;
  }

  /** Re-reads the rig when it changed; cheap enough to call every frame. */
  sync(): void {
    if (this.rig.revision === this.renderedRevision) return;
    this.renderedRevision = this.rig.revision;
    const rig = this.rig;
    this.navOrbit.checked = rig.navigation === 'orbit';
    this.navFly.checked = rig.navigation === 'fly';

    const focal = Math.round(rig.focalLengthMm);
    setSlider(this.focal, focal, `${focal} millimetres`);
    this.focalValue.textContent = `${focal} mm`;
    const fov = fieldOfView(rig.focalLengthMm, rig.frame);
    this.fovReadout.textContent = `Field of view ${fov.horizontalDeg.toFixed(1)}° horizontal × ${fov.verticalDeg.toFixed(1)}° vertical`;

    setSlider(this.focus, focusToSlider(rig.focusDistanceM), formatDistance(rig.focusDistanceM, this.unit));
    this.focusValue.textContent = formatDistance(rig.focusDistanceM, this.unit);
    const stop = F_STOPS.reduce((best, s, i) => (Math.abs(s - rig.fNumber) < Math.abs(F_STOPS[best] - rig.fNumber) ? i : best), 0);
    setSlider(this.aperture, stop, formatFNumber(rig.fNumber));
    this.apertureValue.textContent = formatFNumber(rig.fNumber);
    const roll = Math.round(rig.rollDeg * 2) / 2;
    setSlider(this.roll, roll, `${roll.toFixed(1)} degrees`);
    this.rollValue.textContent = `${roll.toFixed(1)}°`;
  }

  setRecording(recording: boolean, elapsedMs: number): void {
    this.recordButton.setAttribute('aria-pressed', String(recording));
    this.recordButton.classList.toggle('is-recording', recording);
    this.recordButton.replaceChildren(icon([...(recording ? ICONS.stop : ICONS.record)]), recording ? 'Stop recording' : 'Start recording');
    this.markerButton.setAttribute('aria-disabled', String(!recording));
    this.timer.textContent = formatDuration(elapsedMs);
  }

  /** While an offline render holds the viewport a take cannot start: the button says so. */
  setRecordBlocked(blocked: boolean): void {
    this.recordButton.setAttribute('aria-disabled', String(blocked));
    this.recordButton.title = blocked ? 'A render is running: cancel it or let it finish to record.' : '';
  }

  setElapsed(elapsedMs: number): void {
    this.timer.textContent = formatDuration(elapsedMs);
  }

  addTake(links: TakeLinks): void {
    const { take } = links;
    this.takesEmpty.hidden = true;
    this.takesHint.hidden = !this.framed;
    const name = `take-${take.index}`;
    const markers = take.path.markers.length;
    const item = madeItem(
      { 'data-take': take.index },
      `Take ${take.index}`,
      `${formatDuration(take.durationMs)} · ${formatBytes(take.video.size)} · ${markers} marker${markers === 1 ? '' : 's'}`,
      this.framed
        ? null
        : [
            { href: links.videoUrl, fileName: `${name}.webm`, text: 'Video', label: `Download take ${take.index} video (WebM)` },
            {
              href: links.pathUrl,
              fileName: `${name}-camera-path.json`,
              text: 'Camera path',
              label: `Download take ${take.index} camera path (JSON)`,
            },
          ],
    );
    this.takesList.prepend(item);
  }

  setGamepad(status: GamepadStatus): void {
    this.gamepadStatus.textContent = status.connected ? `Gamepad connected: ${status.id}` : 'No gamepad. Connect one and press any button.';
    this.gamepadStatus.dataset.connected = String(status.connected);
  }

  setSpaceMouse(status: SpaceMouseStatus): void {
    this.spaceMouseButton.hidden = !status.supported || status.connected;
    this.spaceMouseStatus.dataset.connected = String(status.connected);
    this.spaceMouseStatus.textContent = !status.supported
      ? '3D mice need a browser with WebHID (Chrome or Edge).'
      : status.connected
        ? `3D mouse connected: ${status.name ?? 'SpaceMouse'}`
        : 'No 3D mouse connected.';
  }

  private async toggleDepthOfField(): Promise<void> {
    const wanted = this.dofToggle.checked;
    const ok = await this.hooks.setDepthOfField(wanted);
    if (wanted && !ok) {
      this.dofToggle.checked = false;
      this.dofToggle.disabled = true;
      this.dofNote.hidden = false;
      this.dofNote.textContent = 'Depth of field is not available on this graphics hardware.';
    }
  }

  private async connectSpaceMouse(): Promise<void> {
    try {
      await this.hooks.connectSpaceMouse();
    } catch {
      this.spaceMouseStatus.textContent = 'The 3D mouse could not be opened. The page embedding the studio may not allow it.';
    }
  }
}

function section(title: string, children: (HTMLElement | null)[]): HTMLElement {
  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('section', { className: 'panel-section', attrs: { 'aria-labelledby': id } }, [
    h('h2', { className: 'panel-title', text: title, attrs: { id } }),
    ...children,
  ]);
}

function field(id: string, label: string, input: HTMLInputElement, value: HTMLElement, extra: HTMLElement | null = null): HTMLElement {
  return h('div', { className: 'field' }, [
    h('div', { className: 'field-row' }, [h('label', { className: 'field-label', attrs: { for: id }, text: label }), value, extra]),
    input,
  ]);
}

function slider(id: string, min: number, max: number, step: number, describedBy?: string): HTMLInputElement {
  return h('input', { className: 'slider', attrs: { type: 'range', id, min, max, step, 'aria-describedby': describedBy } });
}

function radio(name: string, id: string, value: string): HTMLInputElement {
  return h('input', { className: 'segment-input', attrs: { type: 'radio', name, id, value } });
}

function setSlider(input: HTMLInputElement, value: number, text: string): void {
  if (input.value !== String(value)) input.value = String(value);
  input.setAttribute('aria-valuetext', text);
}

function formatDuration(ms: number): string {
  const total = Math.floor(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}
