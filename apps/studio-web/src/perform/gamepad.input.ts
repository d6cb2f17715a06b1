import { MathUtils } from 'three';
import type { CameraRig } from '../viewport/camera-rig';
import type { PerformActions } from './perform-actions';
import { lensTurnScale } from './viewport.controls';

/** Standard-mapping button indices (https://w3c.github.io/gamepad/#remapping). */
const BUTTON = {
  a: 0,
  b: 1,
  x: 2,
  y: 3,
  lb: 4,
  rb: 5,
  lt: 6,
  rt: 7,
  dpadUp: 12,
  dpadDown: 13,
  dpadLeft: 14,
  dpadRight: 15,
} as const;

const DEADZONE = 0.12;
const LOOK_RATE = MathUtils.degToRad(100);
const ZOOM_RATE = 1.2;
const FOCUS_RATE = 1.5;

export interface GamepadStatus {
  connected: boolean;
  id: string | null;
}

type ButtonLike = GamepadButton | number | null | undefined;

/**
 * Polls `navigator.getGamepads()` once per animation frame (the Gamepad API has no input
 * events) and drives the rig: left stick moves, right stick looks/orbits, triggers zoom,
 * bumpers go down/up, the d-pad focuses (up/down) and stops the aperture (left/right). A and X
 * start/stop recording and drop a marker, B switches orbit/fly, Y goes to the next preset —
 * on the press, not while held.
 */
export class GamepadInput {
  private previous: boolean[] = [];
  private status: GamepadStatus = { connected: false, id: null };

  constructor(
    private readonly rig: CameraRig,
    private readonly actions: PerformActions,
    private readonly onStatus: (status: GamepadStatus) => void,
  ) {}

  get current(): GamepadStatus {
    return this.status;
  }

  poll(dt: number): void {
    const pad = this.firstPad();
    this.setStatus(pad ? { connected: true, id: pad.id || 'Gamepad' } : { connected: false, id: null });
    if (!pad) {
      this.previous = [];
      return;
    }
    const axes = pad.axes ?? [];
    const [lx, ly] = stick(axes[0], axes[1]);
    const [rx, ry] = stick(axes[2], axes[3]);
    const buttons = pad.buttons ?? [];
    const value = (i: number) => buttonValue(buttons[i]);

    if (dt > 0) {
      const step = this.rig.moveSpeed * dt;
      this.rig.move(-ly * step, lx * step, (value(BUTTON.rb) - value(BUTTON.lb)) * step);
      const turn = LOOK_RATE * dt * lensTurnScale(this.rig.focalLengthMm);
      // Stick up looks up when flying; orbiting, it raises the camera over the subject.
      this.rig.turn(-rx * turn, (this.rig.navigation === 'orbit' ? ry : -ry) * turn);
      const zoom = value(BUTTON.rt) - value(BUTTON.lt);
      if (zoom !== 0) this.rig.zoom(Math.exp(zoom * ZOOM_RATE * dt));
      const focus = value(BUTTON.dpadUp) - value(BUTTON.dpadDown);
      if (focus !== 0) this.rig.setFocusDistance(this.rig.focusDistanceM * Math.exp(focus * FOCUS_RATE * dt));
    }

    const pressed = buttons.map((b) => buttonPressed(b));
    const edge = (i: number) => pressed[i] === true && this.previous[i] !== true;
    if (edge(BUTTON.a)) this.actions.toggleRecording();
    if (edge(BUTTON.x)) this.actions.dropMarker();
    if (edge(BUTTON.b)) this.actions.toggleNavigation();
    if (edge(BUTTON.y)) this.actions.goToPreset();
    if (edge(BUTTON.dpadLeft)) this.rig.stepAperture(-1);
    if (edge(BUTTON.dpadRight)) this.rig.stepAperture(1);
    this.previous = pressed;
  }

  /** The first connected pad; tests may stub getGamepads with plain objects. */
  private firstPad(): Gamepad | null {
    let pads: ReadonlyArray<Gamepad | null>;
    try {
      pads = typeof navigator.getGamepads === 'function' ? [...navigator.getGamepads()] : [];
    } catch {
      // Permissions Policy can forbid the API in this frame; then there is simply no pad.
      return null;
    }
    for (const pad of pads) {
      if (pad && pad.connected !== false) return pad;
    }
    return null;
  }

  private setStatus(next: GamepadStatus): void {
    if (next.connected === this.status.connected && next.id === this.status.id) return;
    this.status = next;
    this.onStatus(next);
  }
}

/** Radial deadzone, rescaled so motion starts smoothly at its edge. */
function stick(x: number | undefined, y: number | undefined): [number, number] {
  const ax = Number.isFinite(x) ? (x as number) : 0;
  const ay = Number.isFinite(y) ? (y as number) : 0;
  const magnitude = Math.hypot(ax, ay);
  if (magnitude < DEADZONE) return [0, 0];
  const scaled = Math.min(1, (magnitude - DEADZONE) / (1 - DEADZONE));
  return [(ax / magnitude) * scaled, (ay / magnitude) * scaled];
}

function buttonValue(button: ButtonLike): number {
  if (typeof button === 'number') return button;
  if (!button) return 0;
  return typeof button.value === 'number' ? button.value : button.pressed ? 1 : 0;
}

function buttonPressed(button: ButtonLike): boolean {
  if (typeof button === 'number') return button > 0.5;
  if (!button) return false;
  return button.pressed === true || buttonValue(button) > 0.5;
}
