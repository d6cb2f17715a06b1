import fc from 'fast-check';
import { frameFormat, DEFAULT_FRAME } from './lens';
import type { CameraPathDocument, CameraPathKeyframe, CameraPathSample, KeyframeEasing } from './camera-path';
import { parseCameraPathFile } from './camera-path-file';
import { documentForMove, keyframeOf, moveFromDocument } from './camera-move-document';
import { moveFromKeyframes } from './keyframe-move';
import { keyframeAt as key } from './camera-path.fixtures';

const sample = (t: number, x: number): CameraPathSample => ({
  t,
  position: [x, 0, 0],
  quaternion: [0, 0, 0, 1],
  focalLengthMm: 35,
  focusDistanceM: 5,
  fNumber: 2.8,
  rollDeg: 0,
  verticalFovDeg: 31.8,
});

const FACTS = { frame: DEFAULT_FRAME, sceneVersion: 3, recordedAt: '2026-11-26T10:00:00.000Z' };

const authored = (keyframes: CameraPathKeyframe[], smoothing: number, durationMs: number) => ({
  keyframes,
  smoothing,
  move: moveFromKeyframes(keyframes, smoothing, durationMs),
});

describe(moveFromDocument.name, () => {
  const base: CameraPathDocument = {
    format: 'scene-studio.camera-path',
    formatVersion: 1,
    sceneVersion: 1,
    recordedAt: '2026-11-26T10:00:00.000Z',
    durationMs: 1000,
    video: { mimeType: 'video/webm', aspect: 16 / 9 },
    coordinateSystem: 'gltf',
    sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
    samples: [sample(0, 0), sample(1000, 10)],
    markers: [],
  };

  it('plays the samples of a take', () => {
    expect(moveFromDocument(base).poseAt(500).position[0]).toBeCloseTo(5, 9);
  });

  it('plays the keyframes when there are any: the samples are only a baked copy', () => {
    const doc = {
      ...base,
      keyframes: [key(0, { position: [0, 0, 0], easing: 'ease-in' }), key(1000, { position: [10, 0, 0] })],
      smoothing: 0,
    };
    expect(moveFromDocument(doc).poseAt(500).position[0]).toBeCloseTo(2.5, 9);
  });

  it('reads an empty keyframe list as none', () => {
    expect(moveFromDocument({ ...base, keyframes: [] }).poseAt(500).position[0]).toBeCloseTo(5, 9);
  });
});

describe(documentForMove.name, () => {
  const keyframes = [key(0), key(1000, { position: [4, 1.6, 8], focalLengthMm: 85 }), key(2500, { position: [4, 3, 2] })];

  it('writes the format with the keyframes, the smoothing and no video', () => {
    const doc = documentForMove(authored(keyframes, 0.5, 3000), FACTS);
    expect(doc).toMatchObject({
      format: 'scene-studio.camera-path',
      formatVersion: 1,
      sceneVersion: 3,
      recordedAt: FACTS.recordedAt,
      durationMs: 3000,
      video: { mimeType: '', aspect: 1.777778 },
      coordinateSystem: 'gltf',
      sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
      markers: [],
      keyframes,
      smoothing: 0.5,
    });
    expect(doc.keyframes).not.toBe(keyframes);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it('bakes samples at 30 fps from 0 to the duration, on the move', () => {
    const doc = documentForMove(authored(keyframes, 0.5, 3000), FACTS);
    expect(doc.samples).toHaveLength(91);
    expect(doc.samples.slice(0, 4).map((s) => s.t)).toEqual([0, 33.3, 66.7, 100]);
    expect(doc.samples[doc.samples.length - 1].t).toBe(3000);
    const move = moveFromKeyframes(keyframes, 0.5, 3000);
    for (const s of doc.samples) {
      const pose = move.poseAt(s.t);
      s.position.forEach((x, d) => expect(x).toBeCloseTo(pose.position[d], 3));
      expect(s.focalLengthMm).toBeCloseTo(pose.focalLengthMm, 1);
      expect(s.verticalFovDeg).toBeCloseTo((2 * Math.atan(20.25 / 2 / s.focalLengthMm) * 180) / Math.PI, 1);
    }
  });

  it('ends the samples on the duration when it is not a whole frame', () => {
    const doc = documentForMove(authored(keyframes, 0, 2510), FACTS);
    expect(doc.samples.slice(-2).map((s) => s.t)).toEqual([2500, 2510]);
  });

  it("records the rig's sensor and aspect, and the gate's field of view", () => {
    const frame = frameFormat('super-35', '2.39:1');
    const doc = documentForMove(authored(keyframes, 0, 2500), { ...FACTS, frame });
    expect(doc.video.aspect).toBe(2.39);
    expect(doc.sensor).toEqual({ widthMm: 24.89, heightMm: 18.66, filmGaugeMm: 24.89 });
    expect(doc.samples[0].verticalFovDeg).toBeCloseTo((2 * Math.atan(24.89 / 2.39 / 2 / 35) * 180) / Math.PI, 2);
  });

  it('writes a file the studio reads back as the same move', () => {
    const arbitraryKey = fc.record({
      dt: fc.integer({ min: 1, max: 3000 }),
      x: fc.double({ min: -100, max: 100, noNaN: true }),
      yawDeg: fc.double({ min: -179, max: 179, noNaN: true }),
      focalLengthMm: fc.double({ min: 12, max: 200, noNaN: true }),
      fNumber: fc.constantFrom(1.4, 2.8, 8, 22),
      easing: fc.constantFrom<KeyframeEasing>('linear', 'ease-in', 'ease-out', 'ease-in-out', 'hold'),
    });
    fc.assert(
      fc.property(fc.array(arbitraryKey, { minLength: 1, maxLength: 5 }), fc.double({ min: 0, max: 1, noNaN: true }), (raw, smoothing) => {
        let t = 0;
        const keys = raw.map((k) => {
          const half = (k.yawDeg * Math.PI) / 360;
          t += k.dt;
          return keyframeOf(
            t,
            {
              position: [k.x, 1, 0],
              quaternion: [0, Math.sin(half), 0, Math.cos(half)],
              focalLengthMm: k.focalLengthMm,
              focusDistanceM: 5,
              fNumber: k.fNumber,
              rollDeg: 0,
            },
            k.easing,
          );
        });
        const doc = documentForMove(authored(keys, smoothing, t + 100), FACTS);
        const parsed = parseCameraPathFile(JSON.stringify(doc));
        expect(parsed).toEqual({ ok: true, document: doc });
        const played = moveFromDocument(doc);
        const want = moveFromKeyframes(keys, smoothing, t + 100);
        for (const at of [0, t / 3, t / 2, t, t + 100]) expect(played.poseAt(at)).toEqual(want.poseAt(at));
      }),
      { numRuns: 50 },
    );
  });
});

describe(keyframeOf.name, () => {
  it('keeps the precision a take records', () => {
    const k = keyframeOf(
      1200,
      {
        position: [1.234567, 2, -3.00004],
        quaternion: [0, 0.3826834324, 0, 0.9238795325],
        focalLengthMm: 35.456,
        focusDistanceM: 4.12345,
        fNumber: 2.8,
        rollDeg: 1.234,
      },
      'hold',
    );
    expect(k).toEqual({
      t: 1200,
      position: [1.2346, 2, -3],
      quaternion: [0, 0.382683, 0, 0.92388],
      focalLengthMm: 35.46,
      focusDistanceM: 4.123,
      fNumber: 2.8,
      rollDeg: 1.23,
      easing: 'hold',
    });
  });
});
