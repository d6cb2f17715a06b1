import { CameraPreset, PropSpec, Vec3 } from '../scene-spec';
import { normalize } from './geometry';
import { Ground } from './prop-placement';
import { round } from './prng';
import { PROP_HEIGHT } from './prop-meshes';

/** Cameras never sit closer than this above the ground or the water. */
const CLEARANCE = 1.5;

/**
 * Four presets a studio user expects: a wide view of the whole scene, a hero shot of the focal
 * prop, a low angle looking up across the ground, and a plan view. Sized from the terrain, so
 * they suit any scene size.
 */
export function cameraPresets(ground: Ground, focal: PropSpec | null): CameraPreset[] {
  const S = ground.terrain.size;
  // Aim at the surface you would see: the water where the ground is under it.
  const h = (x: number, z: number) => Math.max(ground.field(x, z), ground.water?.level ?? -Infinity);
  const focus: Vec3 = focal
    ? [focal.position[0], focal.position[1] + Math.min(PROP_HEIGHT[focal.kind] * focal.scale[1] * 0.45, 12), focal.position[2]]
    : [0, h(0, 0) + 2, 0];
  const subjectHeight = focal ? PROP_HEIGHT[focal.kind] * focal.scale[1] : 4;
  const heroDistance = Math.max(12, subjectHeight * 1.6);
  const heroDir = normalize([0.45, 0.22, 0.86]);

  const presets: CameraPreset[] = [
    {
      id: 'wide',
      name: 'Wide establishing',
      position: [0, h(0, S * 0.45) + S * 0.2, S * 0.45],
      target: [0, h(0, -S * 0.1) + 2, -S * 0.1],
      focalLengthMm: 24,
    },
    {
      id: 'hero',
      name: 'Hero',
      position: [focus[0] + heroDir[0] * heroDistance, focus[1] + heroDir[1] * heroDistance, focus[2] + heroDir[2] * heroDistance],
      target: focus,
      focalLengthMm: 50,
    },
    {
      id: 'low-angle',
      name: 'Low angle',
      position: [-S * 0.15, h(-S * 0.15, S * 0.32) + 1.6, S * 0.32],
      target: [0, h(0, -S * 0.1) + S * 0.06, -S * 0.1],
      focalLengthMm: 28,
    },
    {
      id: 'top-down',
      name: 'Top down',
      // A hair off vertical so "up" on screen is the scene's back, not an arbitrary direction.
      // Low and wide rather than high and long, so thick fog (far at 0.75 S) still shows ground.
      position: [0, h(0, 0) + S * 0.55, S * 0.012],
      target: [0, h(0, 0), 0],
      focalLengthMm: 16,
    },
  ];
  return clampCameras(presets, ground);
}

/** Keeps every camera above the ground and the water, and rounds for a stable spec. */
export function clampCameras(cameras: readonly CameraPreset[], ground: Ground): CameraPreset[] {
  return cameras.map((c) => {
    const floor = Math.max(ground.field(c.position[0], c.position[2]), ground.water?.level ?? -Infinity) + CLEARANCE;
    const position: Vec3 = [c.position[0], Math.max(c.position[1], floor), c.position[2]];
    return {
      ...c,
      position: position.map((v) => round(v)) as Vec3,
      target: c.target.map((v) => round(v)) as Vec3,
      focalLengthMm: round(c.focalLengthMm, 1),
    };
  });
}

/**
 * Vertical field of view for the studio's frame: 16:9 across the full 36 mm width of a
 * full-frame sensor (36 × 20.25 mm), the same lens model the studio's camera uses.
 */
export const FRAME_ASPECT = 16 / 9;
export function yfovFromFocalLength(focalLengthMm: number): number {
  return 2 * Math.atan(36 / FRAME_ASPECT / 2 / focalLengthMm);
}
