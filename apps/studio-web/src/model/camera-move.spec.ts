import type { CameraPathSample } from './camera-path';
import { interpolatePose, moveFromPath, type MovePose } from './camera-move';

const YAW_90: [number, number, number, number] = [0, Math.SQRT1_2, 0, Math.SQRT1_2];

const sample = (t: number, overrides: Partial<CameraPathSample> = {}): CameraPathSample => ({
  t,
  position: [0, 0, 0],
  quaternion: [0, 0, 0, 1],
  focalLengthMm: 35,
  focusDistanceM: 5,
  fNumber: 2.8,
  rollDeg: 0,
  verticalFovDeg: 37.8,
  ...overrides,
});

describe(moveFromPath.name, () => {
  const move = moveFromPath({
    durationMs: 1000,
    samples: [sample(0), sample(1000, { position: [10, 0, -4], quaternion: YAW_90, focalLengthMm: 85, fNumber: 8, rollDeg: 10 })],
  });

  it('interpolates position and lens values between samples', () => {
    const p = move.poseAt(250);
    expect(p.position[0]).toBeCloseTo(2.5);
    expect(p.position[2]).toBeCloseTo(-1);
    expect(p.focalLengthMm).toBeCloseTo(47.5);
    expect(p.rollDeg).toBeCloseTo(2.5);
  });

  it('turns along the great arc: halfway between 0° and 90° of yaw is 45°', () => {
    const [x, y, z, w] = move.poseAt(500).quaternion;
    expect([x, z]).toEqual([0, 0]);
    expect(2 * Math.atan2(y, w)).toBeCloseTo(Math.PI / 4);
  });

  it('holds the first and last pose outside the span', () => {
    expect(move.poseAt(-50).position).toEqual([0, 0, 0]);
    expect(move.poseAt(5000).position).toEqual([10, 0, -4]);
  });

  it('refuses a path with no samples', () => {
    expect(() => moveFromPath({ durationMs: 0, samples: [] })).toThrow(/without samples/);
  });
});

describe(interpolatePose.name, () => {
  const pose = (q: [number, number, number, number]): MovePose => ({
    position: [0, 0, 0],
    quaternion: q,
    focalLengthMm: 35,
    focusDistanceM: 5,
    fNumber: 2.8,
    rollDeg: 0,
  });

  it('takes the short way round when the second quaternion is the negated form', () => {
    const negated: [number, number, number, number] = [0, -Math.SQRT1_2, 0, -Math.SQRT1_2];
    const [, y, , w] = interpolatePose(pose([0, 0, 0, 1]), pose(negated), 0.5).quaternion;
    expect(Math.abs(2 * Math.atan2(y, w))).toBeCloseTo(Math.PI / 4);
  });

  it('switches the aperture at the midpoint instead of passing through stops that do not exist', () => {
    const a = { ...pose([0, 0, 0, 1]), fNumber: 2 };
    const b = { ...pose([0, 0, 0, 1]), fNumber: 8 };
    expect(interpolatePose(a, b, 0.49).fNumber).toBe(2);
    expect(interpolatePose(a, b, 0.5).fNumber).toBe(8);
  });
});
