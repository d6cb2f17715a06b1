import fc from 'fast-check';
import type { CameraPathKeyframe, KeyframeEasing } from './camera-path';
import { centripetalCatmullRom, easeFraction, moveFromKeyframes } from './keyframe-move';

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

const YAW_90: Quat = [0, Math.SQRT1_2, 0, Math.SQRT1_2];
const EASINGS: KeyframeEasing[] = ['linear', 'ease-in', 'ease-out', 'ease-in-out', 'hold'];

const key = (t: number, overrides: Partial<CameraPathKeyframe> = {}): CameraPathKeyframe => ({
  t,
  position: [0, 0, 0],
  quaternion: [0, 0, 0, 1],
  focalLengthMm: 35,
  focusDistanceM: 5,
  fNumber: 2.8,
  rollDeg: 0,
  easing: 'linear',
  ...overrides,
});

const yaw = (q: readonly number[]) => 2 * Math.atan2(q[1], q[3]);

/** The centripetal Catmull-Rom point by the Barry–Goldman pyramid: an independent formula. */
function barryGoldman(p: Vec3[], u: number): Vec3 {
  const knots = [0];
  for (let i = 1; i < 4; i++) knots.push(knots[i - 1] + Math.sqrt(Math.hypot(...p[i].map((x, d) => x - p[i - 1][d]))));
  const [t0, t1, t2, t3] = knots;
  const t = t1 + u * (t2 - t1);
  const mix = (a: Vec3, b: Vec3, ta: number, tb: number): Vec3 => a.map((x, d) => ((tb - t) * x + (t - ta) * b[d]) / (tb - ta)) as Vec3;
  const a1 = mix(p[0], p[1], t0, t1);
  const a2 = mix(p[1], p[2], t1, t2);
  const a3 = mix(p[2], p[3], t2, t3);
  return mix(mix(a1, a2, t0, t2), mix(a2, a3, t1, t3), t1, t2);
}

describe(easeFraction.name, () => {
  it('follows docs/camera-paths.md: k², 1 − (1 − k)², the smoothstep, and hold', () => {
    expect(easeFraction('linear', 0.3)).toBeCloseTo(0.3, 12);
    expect(easeFraction('ease-in', 0.5)).toBeCloseTo(0.25, 12);
    expect(easeFraction('ease-out', 0.5)).toBeCloseTo(0.75, 12);
    expect(easeFraction('ease-in-out', 0.25)).toBeCloseTo(3 * 0.0625 - 2 * 0.015625, 12);
    expect(easeFraction('ease-in-out', 0.5)).toBeCloseTo(0.5, 12);
    expect(easeFraction('hold', 0.999)).toBe(0);
    expect(easeFraction('hold', 1)).toBe(1);
  });

  it('starts at 0, ends at 1 and never goes back, for every easing', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...EASINGS),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (e, a, b) => {
          expect(easeFraction(e, 0)).toBe(0);
          expect(easeFraction(e, 1)).toBe(1);
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(easeFraction(e, lo)).toBeLessThanOrEqual(easeFraction(e, hi) + 1e-12);
        },
      ),
    );
  });
});

describe(centripetalCatmullRom.name, () => {
  const point = fc.tuple(
    fc.double({ min: -50, max: 50, noNaN: true }),
    fc.double({ min: -50, max: 50, noNaN: true }),
    fc.double({ min: -50, max: 50, noNaN: true }),
  );

  it('equals the Barry–Goldman pyramid for points that do not repeat', () => {
    fc.assert(
      fc.property(fc.array(point, { minLength: 4, maxLength: 4 }), fc.double({ min: 0, max: 1, noNaN: true }), (raw, u) => {
        const p = raw as Vec3[];
        for (let i = 1; i < 4; i++) fc.pre(Math.hypot(...p[i].map((x, d) => x - p[i - 1][d])) > 0.01);
        const got = centripetalCatmullRom(p[0], p[1], p[2], p[3], u);
        const want = barryGoldman(p, u);
        got.forEach((x, d) => expect(x).toBeCloseTo(want[d], 6));
      }),
    );
  });

  it('passes through its two middle points', () => {
    const p: Vec3[] = [
      [0, 0, 0],
      [1, 2, 0],
      [3, 2, -1],
      [4, 0, 1],
    ];
    centripetalCatmullRom(p[0], p[1], p[2], p[3], 0).forEach((x, d) => expect(x).toBeCloseTo(p[1][d], 12));
    centripetalCatmullRom(p[0], p[1], p[2], p[3], 1).forEach((x, d) => expect(x).toBeCloseTo(p[2][d], 12));
  });

  it('stays on a segment whose ends are the same point (a pan keeps its position), and is finite when a neighbour repeats', () => {
    const p: Vec3[] = [
      [0, 0, 0],
      [1, 2, 0],
      [1, 2, 0],
      [4, 0, 1],
    ];
    for (const u of [0, 0.3, 0.5, 1]) expect(centripetalCatmullRom(p[0], p[1], p[2], p[3], u)).toEqual([1, 2, 0]);
    const mid = centripetalCatmullRom(p[0], p[0], p[1], p[3], 0.5);
    expect(mid.every(Number.isFinite)).toBe(true);
  });

  it('is the straight line itself through evenly spaced points on a line', () => {
    const mid = centripetalCatmullRom([0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3], 0.3);
    mid.forEach((x) => expect(x).toBeCloseTo(1.3, 12));
  });
});

describe(moveFromKeyframes.name, () => {
  it('holds the first pose before the first keyframe and the last after the last', () => {
    const move = moveFromKeyframes([key(500, { position: [1, 0, 0] }), key(1500, { position: [3, 0, 0] })], 0.5, 4000);
    expect(move.durationMs).toBe(4000);
    expect(move.poseAt(0).position).toEqual([1, 0, 0]);
    expect(move.poseAt(-100).position).toEqual([1, 0, 0]);
    expect(move.poseAt(2000).position).toEqual([3, 0, 0]);
    expect(move.poseAt(1e9).position).toEqual([3, 0, 0]);
  });

  it('is at each keyframe exactly at its time, whatever the easing and smoothing', () => {
    const keyframe = fc.record({
      dt: fc.integer({ min: 1, max: 5000 }),
      position: fc.tuple(
        fc.double({ min: -100, max: 100, noNaN: true }),
        fc.double({ min: -100, max: 100, noNaN: true }),
        fc.double({ min: -100, max: 100, noNaN: true }),
      ),
      focalLengthMm: fc.double({ min: 12, max: 200, noNaN: true }),
      focusDistanceM: fc.double({ min: 0.1, max: 10_000, noNaN: true }),
      rollDeg: fc.double({ min: -180, max: 180, noNaN: true }),
      easing: fc.constantFrom(...EASINGS),
    });
    fc.assert(
      fc.property(fc.array(keyframe, { minLength: 1, maxLength: 8 }), fc.double({ min: 0, max: 1, noNaN: true }), (raw, smoothing) => {
        let t = 0;
        const keys = raw.map((k) => key((t += k.dt), { ...k, position: k.position as Vec3 }));
        const move = moveFromKeyframes(keys, smoothing);
        for (const k of keys) {
          const pose = move.poseAt(k.t);
          pose.position.forEach((x, d) => expect(x).toBeCloseTo(k.position[d], 6));
          expect(pose.focalLengthMm).toBeCloseTo(k.focalLengthMm, 6);
          expect(pose.focusDistanceM).toBeCloseTo(k.focusDistanceM, 6);
          expect(pose.rollDeg).toBeCloseTo(k.rollDeg, 6);
        }
      }),
    );
  });

  it("puts the eased fraction through the leaving keyframe's easing (smoothing 0: straight lines)", () => {
    const at = (easing: KeyframeEasing) =>
      moveFromKeyframes([key(0, { easing }), key(1000, { position: [8, 0, 0], focalLengthMm: 85, rollDeg: 10 })], 0).poseAt(500);
    expect(at('linear').position[0]).toBeCloseTo(4, 9);
    expect(at('ease-in').position[0]).toBeCloseTo(2, 9);
    expect(at('ease-in').focalLengthMm).toBeCloseTo(35 + 50 * 0.25, 9);
    expect(at('ease-out').position[0]).toBeCloseTo(6, 9);
    expect(at('ease-in-out').position[0]).toBeCloseTo(4, 9);
    expect(at('hold').position[0]).toBe(0);
    expect(at('hold').rollDeg).toBe(0);
  });

  it('holds a hold keyframe until the next one, then cuts to it', () => {
    const move = moveFromKeyframes([key(0, { easing: 'hold' }), key(1000, { position: [5, 0, 0], quaternion: YAW_90 })], 1);
    expect(move.poseAt(999.9).position).toEqual([0, 0, 0]);
    expect(move.poseAt(999.9).quaternion).toEqual([0, 0, 0, 1]);
    expect(move.poseAt(1000).position).toEqual([5, 0, 0]);
  });

  it('slerps orientations along the shorter arc', () => {
    const negated: Quat = [0, -Math.SQRT1_2, 0, -Math.SQRT1_2];
    const move = moveFromKeyframes([key(0), key(1000, { quaternion: negated })], 0);
    expect(Math.abs(yaw(move.poseAt(500).quaternion))).toBeCloseTo(Math.PI / 4, 9);
  });

  it('changes the aperture when the eased fraction reaches one half', () => {
    const stops = (easing: KeyframeEasing) => moveFromKeyframes([key(0, { fNumber: 2, easing }), key(1000, { fNumber: 8 })], 0);
    expect(stops('linear').poseAt(499).fNumber).toBe(2);
    expect(stops('linear').poseAt(500).fNumber).toBe(8);
    // ease-in reaches ½ at k = √½.
    expect(stops('ease-in').poseAt(700).fNumber).toBe(2);
    expect(stops('ease-in').poseAt(710).fNumber).toBe(8);
    expect(stops('hold').poseAt(999).fNumber).toBe(2);
  });

  it('blends the straight line and the centripetal curve by the smoothing', () => {
    const points: Vec3[] = [
      [0, 0, 0],
      [4, 0, 0],
      [4, 0, -4],
      [8, 1, -4],
    ];
    const keys = points.map((p, i) => key(i * 1000, { position: p }));
    const straight = moveFromKeyframes(keys, 0).poseAt(1500).position;
    const curved = moveFromKeyframes(keys, 1).poseAt(1500).position;
    const half = moveFromKeyframes(keys, 0.5).poseAt(1500).position;
    expect(straight).toEqual([4, 0, -2]);
    const want = barryGoldman(points, 0.5);
    curved.forEach((x, d) => expect(x).toBeCloseTo(want[d], 9));
    half.forEach((x, d) => expect(x).toBeCloseTo((straight[d] + curved[d]) / 2, 9));
    // The curve bulges outwards round the corner, away from the straight segment.
    expect(curved[0]).toBeGreaterThan(4);
  });

  it('makes a two-keyframe move straight at any smoothing (the ends reflect their neighbour)', () => {
    const keys = [key(0), key(1000, { position: [3, 6, -9], focalLengthMm: 100 })];
    const pose = moveFromKeyframes(keys, 1).poseAt(250);
    pose.position.forEach((x, d) => expect(x).toBeCloseTo(keys[1].position[d] * 0.25, 9));
    expect(pose.focalLengthMm).toBeCloseTo(35 + 65 * 0.25, 9);
  });

  it('applies the eased fraction to the curve, so easing and smoothing combine', () => {
    const points: Vec3[] = [
      [0, 0, 0],
      [4, 0, 0],
      [4, 0, -4],
    ];
    const keys = points.map((p, i) => key(i * 1000, { position: p, easing: 'ease-in' }));
    const pose = moveFromKeyframes(keys, 1).poseAt(500);
    const want = barryGoldman([[-4, 0, 0], points[0], points[1], points[2]], 0.25);
    pose.position.forEach((x, d) => expect(x).toBeCloseTo(want[d], 9));
  });

  it("keeps every lens value between its segment's two keyframes, so inside the format's ranges", () => {
    const lens = fc.record({
      focalLengthMm: fc.double({ min: 12, max: 200, noNaN: true }),
      focusDistanceM: fc.double({ min: 0.1, max: 10_000, noNaN: true }),
      rollDeg: fc.double({ min: -180, max: 180, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(lens, { minLength: 2, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, smoothing, k) => {
          const keys = values.map((v, i) => key(i * 1000, v));
          const move = moveFromKeyframes(keys, smoothing);
          const i = Math.min(keys.length - 2, Math.floor(k * (keys.length - 1)));
          const pose = move.poseAt(keys[i].t + 1000 * k);
          for (const field of ['focalLengthMm', 'focusDistanceM', 'rollDeg'] as const) {
            const [lo, hi] = [keys[i][field], keys[i + 1][field]].sort((a, b) => a - b);
            expect(pose[field]).toBeGreaterThanOrEqual(lo - 1e-9 * Math.max(1, Math.abs(lo)));
            expect(pose[field]).toBeLessThanOrEqual(hi + 1e-9 * Math.max(1, Math.abs(hi)));
          }
        },
      ),
    );
  });

  it('stays where keyframes share a position, with nothing infinite', () => {
    const keys = [key(0), key(1000), key(2000, { position: [1, 1, 1] })];
    const pose = moveFromKeyframes(keys, 1).poseAt(500);
    expect(pose.position.every(Number.isFinite)).toBe(true);
    pose.position.forEach((x) => expect(x).toBeCloseTo(0, 9));
  });

  it('gives each caller its own arrays', () => {
    const keys = [key(0, { position: [1, 2, 3] })];
    const pose = moveFromKeyframes(keys, 0).poseAt(0);
    pose.position[0] = 99;
    expect(keys[0].position[0]).toBe(1);
  });

  it('refuses no keyframes, and keyframes out of order or at the same time', () => {
    expect(() => moveFromKeyframes([], 0)).toThrow(/at least one keyframe/);
    expect(() => moveFromKeyframes([key(10), key(10)], 0)).toThrow(/ascending, distinct/);
    expect(() => moveFromKeyframes([key(10), key(5)], 0)).toThrow(/ascending, distinct/);
  });
});
