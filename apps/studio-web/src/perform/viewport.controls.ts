import { MathUtils } from 'three';
import type { CameraRig } from '../viewport/camera-rig';
import { fieldOfView } from '../model/lens';
import type { PerformActions } from './perform-actions';
import { isTypingTarget } from '../ui/dom';

const FAST_FACTOR = 4;
const KEY_TURN_RATE = MathUtils.degToRad(70);
const KEY_ZOOM_RATE = 1.1;
const KEY_ROLL_RATE = 30;

interface PointerPoint {
  x: number;
  y: number;
  button: number;
  shift: boolean;
}

/**
 * Keyboard, mouse and touch for the camera rig. Keys are read by physical position
 * (`event.code`), so WASD works on any layout, and ignored while the user types in a field —
 * sliders keep their arrow keys. Pointer input lives on the canvas: drag turns (orbit or look),
 * right/middle/shift-drag pans, the wheel dollies, two fingers pinch and pan.
 */
export class ViewportControls {
  private readonly held = new Set<string>();
  private readonly pointers = new Map<number, PointerPoint>();
  private pinchDistance = 0;
  private pinchCenter = { x: 0, y: 0 };
  private readonly abort = new AbortController();

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly rig: CameraRig,
    private readonly actions: PerformActions,
    /** Distance in metres to what is under a canvas point (NDC), for double-click focus. */
    private readonly pick: (ndcX: number, ndcY: number) => number | null,
  ) {
    const signal = this.abort.signal;
    window.addEventListener('keydown', this.onKeyDown, { signal });
    window.addEventListener('keyup', (e) => this.held.delete(e.code), { signal });
    window.addEventListener('blur', () => this.held.clear(), { signal });
    canvas.addEventListener('pointerdown', this.onPointerDown, { signal });
    canvas.addEventListener('pointermove', this.onPointerMove, { signal });
    canvas.addEventListener('pointerup', this.onPointerUp, { signal });
    canvas.addEventListener('pointercancel', this.onPointerUp, { signal });
    canvas.addEventListener('wheel', this.onWheel, { signal, passive: false });
    canvas.addEventListener('dblclick', this.onDoubleClick, { signal });
    canvas.addEventListener('contextmenu', (e) => e.preventDefault(), { signal });
  }

  dispose(): void {
    this.abort.abort();
    this.held.clear();
    this.pointers.clear();
  }

  /** Applies held keys; called every animation frame. */
  update(dt: number): void {
    if (this.held.size === 0 || dt === 0) return;
    const k = (code: string) => (this.held.has(code) ? 1 : 0);
    const fast = k('ShiftLeft') || k('ShiftRight') ? FAST_FACTOR : 1;
    const step = this.rig.moveSpeed * fast * dt;
    this.rig.move((k('KeyW') - k('KeyS')) * step, (k('KeyD') - k('KeyA')) * step, (k('KeyE') - k('KeyQ')) * step);

    const turn = KEY_TURN_RATE * dt * (fast > 1 ? 2 : 1) * lensTurnScale(this.rig.focalLengthMm);
    const yaw = (k('ArrowLeft') - k('ArrowRight')) * turn;
    const pitch = (k('ArrowUp') - k('ArrowDown')) * turn;
    // Orbiting, "up" raises the camera over the subject, which tilts the view down.
    this.rig.turn(yaw, this.rig.navigation === 'orbit' ? -pitch : pitch);

    const zoom = k('BracketRight') + k('Equal') - k('BracketLeft') - k('Minus');
    if (zoom !== 0) this.rig.zoom(Math.exp(zoom * KEY_ZOOM_RATE * dt));
    const roll = k('KeyC') - k('KeyZ');
    if (roll !== 0) this.rig.setRollDeg(this.rig.rollDeg + roll * KEY_ROLL_RATE * dt);
  }

  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (isTypingTarget(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (MOVEMENT_KEYS.has(event.code)) {
      this.held.add(event.code);
      // Arrow keys would scroll the panel and Space would press a focused button.
      if (event.code.startsWith('Arrow')) event.preventDefault();
      return;
    }
    if (event.repeat) return;
    switch (event.code) {
      case 'KeyR':
        this.actions.toggleRecording();
        break;
      case 'KeyM':
        this.actions.dropMarker();
        break;
      case 'KeyF':
        this.actions.toggleNavigation();
        break;
      case 'KeyP':
        this.actions.goToPreset();
        break;
      default: {
        const digit = /^Digit([1-9])$/.exec(event.code);
        if (!digit) return;
        this.actions.goToPreset(Number(digit[1]) - 1);
      }
    }
    event.preventDefault();
  };

  private readonly onPointerDown = (event: PointerEvent): void => {
    this.canvas.focus({ preventScroll: true });
    this.canvas.setPointerCapture(event.pointerId);
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY, button: event.button, shift: event.shiftKey });
    if (this.pointers.size === 2) this.resetPinch();
  };

  private readonly onPointerMove = (event: PointerEvent): void => {
    const point = this.pointers.get(event.pointerId);
    if (!point) return;
    const dx = event.clientX - point.x;
    const dy = event.clientY - point.y;
    point.x = event.clientX;
    point.y = event.clientY;

    if (this.pointers.size >= 2) {
      this.pinchAndPan();
      return;
    }
    const height = Math.max(1, this.canvas.clientHeight);
    const panning = point.button === 1 || point.button === 2 || point.shift;
    if (panning) {
      const metresPerPixel = (2 * this.rig.orbitDistance * Math.tan(MathUtils.degToRad(this.verticalFovDeg()) / 2)) / height;
      this.rig.pan(-dx * metresPerPixel, dy * metresPerPixel);
      return;
    }
    // Looking, a drag across the frame turns by about its field of view (the world follows the
    // hand); orbiting, a frame-height drag swings half way round.
    const radiansPerPixel = this.rig.navigation === 'fly' ? MathUtils.degToRad(this.verticalFovDeg()) / height : Math.PI / height;
    this.rig.turn(-dx * radiansPerPixel, -dy * radiansPerPixel);
  };

  private readonly onPointerUp = (event: PointerEvent): void => {
    this.pointers.delete(event.pointerId);
    if (this.canvas.hasPointerCapture(event.pointerId)) this.canvas.releasePointerCapture(event.pointerId);
    if (this.pointers.size === 2) this.resetPinch();
  };

  private readonly onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    const delta = event.deltaMode === WheelEvent.DOM_DELTA_LINE ? event.deltaY * 16 : event.deltaY;
    if (event.altKey) {
      this.rig.zoom(Math.exp(-delta * 0.001));
      return;
    }
    this.rig.dolly(Math.exp(delta * 0.001));
  };

  private readonly onDoubleClick = (event: MouseEvent): void => {
    const rect = this.canvas.getBoundingClientRect();
    const x = ((event.clientX - rect.left) / rect.width) * 2 - 1;
    const y = -((event.clientY - rect.top) / rect.height) * 2 + 1;
    const distance = this.pick(x, y);
    if (distance !== null) this.rig.setFocusDistance(distance);
  };

  private resetPinch(): void {
    const [a, b] = [...this.pointers.values()];
    this.pinchDistance = Math.hypot(a.x - b.x, a.y - b.y);
    this.pinchCenter = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  private pinchAndPan(): void {
    const [a, b] = [...this.pointers.values()];
    const distance = Math.hypot(a.x - b.x, a.y - b.y);
    const center = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    if (this.pinchDistance > 0 && distance > 0) this.rig.dolly(this.pinchDistance / distance);
    const height = Math.max(1, this.canvas.clientHeight);
    const metresPerPixel = (2 * this.rig.orbitDistance * Math.tan(MathUtils.degToRad(this.verticalFovDeg()) / 2)) / height;
    this.rig.pan(-(center.x - this.pinchCenter.x) * metresPerPixel, (center.y - this.pinchCenter.y) * metresPerPixel);
    this.pinchDistance = distance;
    this.pinchCenter = center;
  }

  private verticalFovDeg(): number {
    return fieldOfView(this.rig.focalLengthMm, this.rig.frame).verticalDeg;
  }
}

const MOVEMENT_KEYS = new Set([
  'KeyW',
  'KeyA',
  'KeyS',
  'KeyD',
  'KeyQ',
  'KeyE',
  'KeyZ',
  'KeyC',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'ShiftLeft',
  'ShiftRight',
  'BracketLeft',
  'BracketRight',
  'Minus',
  'Equal',
]);

/** Long lenses turn slower, so framing stays controllable at 200 mm. */
export function lensTurnScale(focalLengthMm: number): number {
  return MathUtils.clamp(35 / focalLengthMm, 0.15, 1.5);
}
