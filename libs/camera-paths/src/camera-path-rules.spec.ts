import { documentErrors, summaryOf } from './camera-path-rules';
import type { CameraPathDocument } from '@scene-studio/camera-path';

const pose = { position: [0, 1.6, 8] as [number, number, number], quaternion: [0, 0, 0, 1] as [number, number, number, number] };
const lens = { focalLengthMm: 35, focusDistanceM: 8, fNumber: 2.8, rollDeg: 0 };
const sample = (t: number) => ({ t, ...pose, ...lens, verticalFovDeg: 32.2 });
const keyframe = (t: number) => ({ t, ...pose, ...lens, easing: 'linear' as const });

function doc(overrides: Partial<CameraPathDocument> = {}): CameraPathDocument {
  return {
    format: 'scene-studio.camera-path',
    formatVersion: 1,
    sceneVersion: 1,
    recordedAt: '2026-11-26T10:00:00.000Z',
    durationMs: 4000,
    video: { mimeType: 'video/webm', aspect: 16 / 9 },
    coordinateSystem: 'gltf',
    sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
    samples: [sample(0), sample(16.7), sample(33.3)],
    markers: [{ t: 10, label: 'Marker 1', ...pose }],
    ...overrides,
  };
}

const fields = (errors: { field: string; code: string }[]) => errors.map((e) => `${e.field} ${e.code}`);

describe(documentErrors.name, () => {
  it('accepts a take, an authored move and a view', () => {
    expect(documentErrors('path', doc())).toEqual([]);
    expect(documentErrors('path', doc({ samples: [], keyframes: [keyframe(0), keyframe(4000)], smoothing: 0.5 }))).toEqual([]);
    expect(documentErrors('view', doc({ samples: [], markers: [], durationMs: 0, keyframes: [keyframe(0)] }))).toEqual([]);
  });

  it('wants samples ascending (equal times allowed) and keyframes ascending and distinct, naming the item', () => {
    expect(fields(documentErrors('path', doc({ samples: [sample(0), sample(0), sample(20), sample(10)] })))).toEqual([
      'document.samples[3].t not_ascending',
    ]);
    expect(fields(documentErrors('path', doc({ keyframes: [keyframe(0), keyframe(100), keyframe(100), keyframe(50)] })))).toEqual([
      'document.keyframes[2].t not_ascending',
      'document.keyframes[3].t not_ascending',
    ]);
  });

  it('wants unit quaternions within 1e-3 in samples, keyframes and markers', () => {
    const off = (q: number[]) => ({ quaternion: q as [number, number, number, number] });
    const errors = documentErrors(
      'path',
      doc({
        samples: [sample(0), { ...sample(1), ...off([0, 0, 0, 1.0009]) }, { ...sample(2), ...off([0, 0, 0, 0.998]) }],
        keyframes: [keyframe(0), keyframe(10), { ...keyframe(20), ...off([0.5, 0.5, 0.5, 0.6]) }],
        markers: [{ t: 0, label: '', position: [0, 0, 0], ...off([0, 0, 0, 0]) }],
      }),
    );
    expect(fields(errors)).toEqual([
      'document.samples[2].quaternion not_unit',
      'document.keyframes[2].quaternion not_unit',
      'document.markers[0].quaternion not_unit',
    ]);
  });

  it('wants the duration to cover the last sample and the last keyframe', () => {
    expect(fields(documentErrors('path', doc({ durationMs: 30 })))).toEqual(['document.durationMs too_small']);
    expect(fields(documentErrors('path', doc({ durationMs: 40, keyframes: [keyframe(0), keyframe(50)] })))).toEqual([
      'document.durationMs too_small',
    ]);
    expect(documentErrors('path', doc({ durationMs: 33.3 }))).toEqual([]);
  });

  it('a view is exactly one keyframe and lasts 0 ms; a path is two keyframes or a sample', () => {
    expect(fields(documentErrors('view', doc({ samples: [], durationMs: 0, keyframes: [keyframe(0), keyframe(0.5)] })))).toEqual([
      'document.durationMs too_small',
      'document.keyframes invalid_count',
    ]);
    expect(fields(documentErrors('view', doc({ samples: [], durationMs: 0 })))).toEqual(['document.keyframes invalid_count']);
    expect(fields(documentErrors('view', doc({ samples: [], durationMs: 5, keyframes: [keyframe(0)] })))).toEqual([
      'document.durationMs invalid_value',
    ]);
    expect(fields(documentErrors('path', doc({ samples: [], keyframes: [keyframe(0)] })))).toEqual(['document.keyframes invalid_count']);
    expect(fields(documentErrors('path', doc({ samples: [] })))).toEqual(['document.keyframes invalid_count']);
  });

  it('reports at most 100 errors, however many items break a rule', () => {
    const samples = Array.from({ length: 500 }, (_, i) => sample(500 - i));
    expect(documentErrors('path', doc({ samples, durationMs: 1000 }))).toHaveLength(100);
  });
});

describe(summaryOf.name, () => {
  it('counts keyframes (0 without any) and samples', () => {
    expect(summaryOf(doc())).toEqual({ durationMs: 4000, keyframeCount: 0, sampleCount: 3 });
    expect(summaryOf(doc({ samples: [], keyframes: [keyframe(0), keyframe(9)] }))).toEqual({
      durationMs: 4000,
      keyframeCount: 2,
      sampleCount: 0,
    });
  });
});
