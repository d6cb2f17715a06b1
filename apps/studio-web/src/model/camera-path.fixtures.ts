import type { CameraPathKeyframe } from './camera-path';

/** For specs: a keyframe at `t` ms, 1.6 m up and 8 m back, at 35 mm and f/2.8, with overrides. */
export const keyframeAt = (t: number, overrides: Partial<CameraPathKeyframe> = {}): CameraPathKeyframe => ({
  t,
  position: [0, 1.6, 8],
  quaternion: [0, 0, 0, 1],
  focalLengthMm: 35,
  focusDistanceM: 8,
  fNumber: 2.8,
  rollDeg: 0,
  easing: 'ease-in-out',
  ...overrides,
});
