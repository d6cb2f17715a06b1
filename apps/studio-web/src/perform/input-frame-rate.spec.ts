import { CameraRig } from '../viewport/camera-rig';
import { GamepadInput } from './gamepad.input';
import type { PerformActions } from './perform-actions';
import { SpaceMouseInput } from './space-mouse.input';
import { ViewportControls } from './viewport.controls';

/**
 * Camera speed must not depend on the frame rate: a second of held input moves, turns, zooms
 * and rolls the rig as far at 10 fps (a software renderer) as at 60 fps. Pointer drags and the
 * wheel move by how far the hand moved, per event, so they are frame-rate independent by
 * construction; every held input (keys, gamepad, 3D mouse) integrates its rate over `dt`.
 */
const actions: PerformActions = {
  toggleRecording: () => undefined,
  dropMarker: () => undefined,
  toggleNavigation: () => undefined,
  goToPreset: () => undefined,
};

interface Outcome {
  /** The length of the path travelled (turning while moving curves it, so not the displacement). */
  distance: number;
  yaw: number;
  pitch: number;
  focal: number;
  roll: number;
  focus: number;
}

/** Runs `drive(dt)` for one second at `fps` on a fresh rig; returns how far everything went. */
function oneSecond(fps: number, setUp: (rig: CameraRig) => (dt: number) => void): Outcome {
  const rig = new CameraRig();
  rig.setNavigation('fly');
  rig.focalLengthMm = 35;
  rig.focusDistanceM = 5;
  const drive = setUp(rig);
  let distance = 0;
  const last = rig.position.clone();
  for (let i = 0; i < fps; i++) {
    drive(1 / fps);
    distance += rig.position.distanceTo(last);
    last.copy(rig.position);
  }
  return {
    distance,
    yaw: rig.yaw,
    pitch: rig.pitch,
    focal: rig.focalLengthMm,
    roll: rig.rollDeg,
    focus: rig.focusDistanceM,
  };
}

/** Something changed from the starting rig (fly, 35 mm, focus 5 m, level, at the origin). */
function moved(o: Outcome): boolean {
  return o.distance > 0.1 || Math.abs(o.yaw) > 0.01 || Math.abs(o.pitch) > 0.01 || o.focal !== 35 || o.roll !== 0 || o.focus !== 5;
}

function expectSame(a: Outcome, b: Outcome): void {
  for (const key of Object.keys(a) as (keyof Outcome)[]) expect(a[key]).toBeCloseTo(b[key], 6);
}

describe('camera speed and frame rate', () => {
  const saved = { window: globalThis.window, navigator: globalThis.navigator, HTMLElement: globalThis.HTMLElement };
  const keyListeners: ((event: Partial<KeyboardEvent>) => void)[] = [];

  beforeAll(() => {
    const listen = (type: string, listener: (event: Partial<KeyboardEvent>) => void) => {
      if (type === 'keydown') keyListeners.push(listener);
    };
    Object.assign(globalThis, { window: { addEventListener: listen }, HTMLElement: class {} });
  });

  afterAll(() => {
    Object.assign(globalThis, saved);
  });

  // Each input group is held on its own: moving while turning curves the path, and turning while
  // zooming changes the turn rate (long lenses turn slower), so combined runs differ slightly
  // with the step size for reasons that have nothing to do with the frame rate.
  it.each([
    ['W and D (move)', ['KeyW', 'KeyD', 'KeyE']],
    ['the arrows (turn)', ['ArrowLeft', 'ArrowUp']],
    ['] (zoom)', ['BracketRight']],
    ['C (roll)', ['KeyC']],
  ])('held keys, %s: as far at 10 fps as at 60 fps', (_name, keys) => {
    const run = (fps: number) =>
      oneSecond(fps, (rig) => {
        keyListeners.length = 0;
        const canvas = { addEventListener: () => undefined } as unknown as HTMLCanvasElement;
        const sut = new ViewportControls(canvas, rig, actions, () => null);
        for (const code of keys) keyListeners.forEach((l) => l({ code, target: null, preventDefault: () => undefined }));
        return (dt) => sut.update(dt);
      });
    const slow = run(10);
    expectSame(slow, run(60));
    expect(moved(slow)).toBe(true);
  });

  it('held keys: one second of W moves moveSpeed metres, at any frame rate', () => {
    for (const fps of [5, 10, 30, 60, 144]) {
      const result = oneSecond(fps, (rig) => {
        keyListeners.length = 0;
        const sut = new ViewportControls({ addEventListener: () => undefined } as unknown as HTMLCanvasElement, rig, actions, () => null);
        keyListeners.forEach((l) => l({ code: 'KeyW', target: null, preventDefault: () => undefined }));
        return (dt) => sut.update(dt);
      });
      expect(result.distance).toBeCloseTo(6, 9);
    }
  });

  it.each([
    ['left stick and bumper (move)', [0.5, -1, 0, 0], { 5: 0.5 }],
    ['right stick (turn)', [0, 0, 0.8, 0.3], {}],
    ['right trigger (zoom)', [0, 0, 0, 0], { 7: 0.7 }],
    ['d-pad up (focus)', [0, 0, 0, 0], { 12: 1 }],
  ])('a gamepad, %s: the same second at 10 fps as at 60 fps', (_name, axes, pressed: Record<number, number>) => {
    const button = (value: number) => ({ pressed: value > 0.5, touched: value > 0, value });
    const pad = { connected: true, id: 'Test pad', axes, buttons: Array.from({ length: 17 }, (_, i) => button(pressed[i] ?? 0)) };
    Object.defineProperty(globalThis, 'navigator', { value: { getGamepads: () => [pad] }, configurable: true, writable: true });
    const run = (fps: number) =>
      oneSecond(fps, (rig) => {
        const sut = new GamepadInput(rig, actions, () => undefined);
        return (dt) => sut.poll(dt);
      });
    const slow = run(10);
    expectSame(slow, run(60));
    expect(moved(slow)).toBe(true);
  });

  it.each([
    ['push (move)', [100, -350, 50, 0, 0, 0]],
    ['tilt and twist (turn)', [0, 0, 0, 120, 0, -200]],
    ['side tilt (roll)', [0, 0, 0, 0, 80, 0]],
  ])('a 3D mouse, %s: the same move at 10 fps as at 60 fps', (_name, values) => {
    const report = (values: number[]) => {
      const data = new DataView(new ArrayBuffer(12));
      values.forEach((v, i) => data.setInt16(i * 2, v, true));
      return { reportId: 1, data } as unknown as HIDInputReportEvent;
    };
    const run = (fps: number) =>
      oneSecond(fps, (rig) => {
        const sut = new SpaceMouseInput(rig, actions, () => undefined);
        // A device as if opened: the report handler is what a real one calls.
        sut['device'] = {} as HIDDevice;
        sut['onReport'](report(values));
        return (dt) => sut.poll(dt);
      });
    const slow = run(10);
    expectSame(slow, run(60));
    expect(moved(slow)).toBe(true);
  });
});
