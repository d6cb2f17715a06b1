import fc from 'fast-check';
import type { CameraPathSample } from '../../model/camera-path';
import { moveFromKeyframes } from '../../model/keyframe-move';
import { deviation, keyframesFromTake, takeTolerance, type SimplifyTolerance } from './take-keyframes';

const TOLERANCE: SimplifyTolerance = { positionM: 0.05, angleDeg: 1, focalRatio: 0.02, focusRatio: 0.05, rollDeg: 1 };

const sample = (t: number, overrides: Partial<CameraPathSample> = {}): CameraPathSample => ({
  t,
  position: [0, 1.6, 0],
  quaternion: [0, 0, 0, 1],
  focalLengthMm: 35,
  focusDistanceM: 5,
  fNumber: 2.8,
  rollDeg: 0,
  verticalFovDeg: 31.8,
  ...overrides,
});

/** A take at 30 fps: `at(seconds)` gives each frame's overrides. */
const take = (seconds: number, at: (s: number) => Partial<CameraPathSample>): CameraPathSample[] =>
  Array.from({ length: Math.round(seconds * 30) + 1 }, (_, i) => sample(Math.round((i * 1000) / 30), at(i / 30)));

describe(keyframesFromTake.name, () => {
  it('makes a straight move at a steady speed two keyframes, linear', () => {
    const result = keyframesFromTake(
      take(3, (s) => ({ position: [s * 2, 1.6, -s] })),
      TOLERANCE,
    );
    expect(result.keyframes.map((k) => k.t)).toEqual([0, 3000]);
    expect(result.keyframes.every((k) => k.easing === 'linear')).toBe(true);
    expect(result.capped).toBe(false);
  });

  it('keeps the corner of an L-shaped move', () => {
    const result = keyframesFromTake(
      take(2, (s) => ({ position: s <= 1 ? [s * 4, 1.6, 0] : [4, 1.6, -(s - 1) * 4] })),
      TOLERANCE,
    );
    expect(result.keyframes.map((k) => k.t)).toEqual([0, 1000, 2000]);
  });

  it('keeps where the aperture changes stop, and a pan that never moves the camera', () => {
    const result = keyframesFromTake(
      take(2, (s) => ({ fNumber: s < 1.2 ? 2.8 : 8, quaternion: [0, Math.sin(s / 2), 0, Math.cos(s / 2)] })),
      TOLERANCE,
    );
    const move = moveFromKeyframes(result.keyframes, 0);
    expect(move.poseAt(1150).fNumber).toBe(2.8);
    expect(move.poseAt(1200).fNumber).toBe(8);
    expect(result.keyframes.every((k) => k.position[0] === 0)).toBe(true);
  });

  it('replays every sample of the take within the tolerance, unless capped', () => {
    const step = fc.record({
      dx: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
      dz: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
      dyaw: fc.double({ min: -0.1, max: 0.1, noNaN: true }),
      zoom: fc.double({ min: 0.97, max: 1.03, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 120 }), (steps) => {
        let x = 0;
        let z = 0;
        let yaw = 0;
        let focal = 35;
        const samples = steps.map((s, i) => {
          x += s.dx;
          z += s.dz;
          yaw += s.dyaw;
          focal = Math.min(200, Math.max(12, focal * s.zoom));
          return sample(i * 33.3, {
            position: [x, 1.6, z],
            quaternion: [0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2)],
            focalLengthMm: focal,
          });
        });
        const result = keyframesFromTake(samples, TOLERANCE, 1000);
        expect(result.capped).toBe(false);
        const move = moveFromKeyframes(result.keyframes, 0);
        // The keyframes are rounded to the file's precision: a hair more than the tolerance.
        for (const s of samples) expect(deviation(s, move.poseAt(s.t), TOLERANCE)).toBeLessThanOrEqual(1.01);
        expect(result.keyframes.length).toBeLessThanOrEqual(samples.length);
      }),
      { numRuns: 60 },
    );
  });

  it('stops at the cap and says how far the move then strays', () => {
    const zigzag = take(4, (s) => ({ position: [s, 1.6, Math.round(s * 15) % 2 === 0 ? 0 : 1] }));
    const result = keyframesFromTake(zigzag, TOLERANCE, 10);
    expect(result.keyframes).toHaveLength(10);
    expect(result.capped).toBe(true);
    expect(result.worstError).toBeGreaterThan(1);
  });

  it('skips samples that repeat a time, and copes with one sample or none', () => {
    const result = keyframesFromTake([sample(0), sample(0, { position: [9, 9, 9] }), sample(100, { position: [1, 1.6, 0] })], TOLERANCE);
    expect(result.keyframes.map((k) => [k.t, k.position[0]])).toEqual([
      [0, 0],
      [100, 1],
    ]);
    expect(keyframesFromTake([sample(5)], TOLERANCE).keyframes).toHaveLength(1);
    expect(keyframesFromTake([], TOLERANCE)).toEqual({ keyframes: [], worstError: 0, capped: false });
  });
});

describe(takeTolerance.name, () => {
  it("scales the position tolerance with the take's extent, never under 2 cm", () => {
    expect(takeTolerance([sample(0), sample(1, { position: [0.1, 1.6, 0] })]).positionM).toBe(0.02);
    expect(takeTolerance([sample(0), sample(1, { position: [30, 1.6, 40] })]).positionM).toBeCloseTo(0.25, 9);
  });
});
