import { CameraPathRecorder, type CameraPathDocument } from './camera-path';
import { MAX_KEYFRAMES, parseCameraPathFile } from './camera-path-file';
import { keyframeAt as key } from './camera-path.fixtures';

const authored = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: 'scene-studio.camera-path',
  formatVersion: 1,
  sceneVersion: 3,
  recordedAt: '2026-11-26T10:00:00.000Z',
  durationMs: 4000,
  video: { mimeType: '', aspect: 1.777778 },
  coordinateSystem: 'gltf',
  sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
  samples: [],
  markers: [],
  keyframes: [key(0), key(2000, { position: [2, 1.6, 6] }), key(4000, { position: [4, 2, 4], easing: 'hold' })],
  smoothing: 0.5,
  ...overrides,
});

const refusal = (value: unknown): string => {
  const result = parseCameraPathFile(typeof value === 'string' ? value : JSON.stringify(value));
  if (result.ok) throw new Error('expected a refusal');
  return result.reason;
};

describe(parseCameraPathFile.name, () => {
  it('reads an authored move as written', () => {
    const doc = authored();
    expect(parseCameraPathFile(JSON.stringify(doc))).toEqual({ ok: true, document: doc });
  });

  it('reads a take as the recorder writes it, without keyframes or smoothing', () => {
    const recorder = new CameraPathRecorder();
    recorder.start(0);
    recorder.sample(0, {
      position: { x: 0, y: 1, z: 2 },
      quaternion: { x: 0, y: 0, z: 0, w: 1 },
      focalLengthMm: 35,
      focusDistanceM: 4,
      fNumber: 2.8,
      rollDeg: 0,
    });
    recorder.marker(10);
    const take = recorder.finish({ sceneVersion: null, recordedAt: '2026-01-02T03:04:05.678Z', durationMs: 20, mimeType: 'video/webm' });
    const result = parseCameraPathFile(JSON.stringify(take));
    expect(result).toEqual({ ok: true, document: take });
    expect(result.ok && 'keyframes' in result.document).toBe(false);
  });

  it('drops fields the format does not have', () => {
    const result = parseCameraPathFile(JSON.stringify(authored({ extra: 'x', video: { mimeType: '', aspect: 1.5, codec: 'y' } })));
    expect(result.ok && (result.document as CameraPathDocument & { extra?: string }).extra).toBeUndefined();
    expect(result.ok && result.document.video).toEqual({ mimeType: '', aspect: 1.5 });
  });

  it('refuses what is not JSON, or not a camera path, or another version', () => {
    expect(refusal('{"format": ')).toBe('The file is not JSON.');
    expect(refusal('[1, 2]')).toMatch(/not a camera path/);
    expect(refusal(authored({ format: 'other.tool' }))).toBe(
      'The file is not a Scene Studio camera path (its format is "other.tool", not "scene-studio.camera-path").',
    );
    expect(refusal(authored({ format: undefined }))).toMatch(/its format is missing/);
    expect(refusal(authored({ formatVersion: 2 }))).toBe('Camera path format version 2 is not one this studio reads (it reads version 1).');
  });

  it("refuses bad fields by the studio API's rules, naming the field", () => {
    expect(refusal(authored({ durationMs: '4000' }))).toBe('durationMs must be a finite number.');
    expect(refusal(authored({ durationMs: 3_600_001 }))).toBe('durationMs must be at most 3600000.');
    expect(refusal(authored({ smoothing: 2 }))).toBe('smoothing must be at most 1.');
    expect(refusal(authored({ keyframes: [key(0, { focalLengthMm: 300 })] }))).toBe('keyframes[0].focalLengthMm must be at most 200.');
    expect(refusal(authored({ keyframes: [key(0), key(10, { position: [0, 1e6, 0] })] }))).toBe(
      'keyframes[1].position must be within ±100000.',
    );
    expect(refusal(authored({ keyframes: [key(0), key(10, { quaternion: [0, 0, 0, 2] })] }))).toBe(
      'keyframes[1].quaternion must have length 1 (within 0.001).',
    );
    expect(refusal(authored({ keyframes: [{ ...key(0), easing: 'bounce' }] }))).toBe(
      'keyframes[0].easing must be one of linear, ease-in, ease-out, ease-in-out, hold.',
    );
    expect(refusal(authored({ sensor: { widthMm: 36, heightMm: -1, filmGaugeMm: 36 } }))).toBe('sensor.heightMm must be at least 1.');
    expect(refusal(authored({ sceneVersion: 1.5 }))).toBe('sceneVersion must be a whole number or null.');
    expect(refusal(authored({ recordedAt: 'yesterday' }))).toBe(
      'recordedAt must be an ISO 8601 date-time with its offset, like 2026-11-26T10:00:00.000Z.',
    );
    expect(refusal(authored({ markers: [1] }))).toBe('markers[0]: each item of markers must be an object.');
  });

  it('refuses what the studio API would not save: the limits are the same (packages/camera-path)', () => {
    // A sensor larger than medium format, an aspect past 10:1: the page used to read these and
    // then fail to save them.
    expect(refusal(authored({ sensor: { widthMm: 200, heightMm: 24, filmGaugeMm: 36 } }))).toBe('sensor.widthMm must be at most 100.');
    expect(refusal(authored({ video: { mimeType: '', aspect: 20 } }))).toBe('video.aspect must be at most 10.');
    expect(refusal(authored({ markers: [{ t: 0, label: 'x'.repeat(61), position: [0, 0, 0], quaternion: [0, 0, 0, 1] }] }))).toBe(
      'markers[0].label must be at most 60 characters long.',
    );
  });

  it('refuses keyframes out of order, at the same time, or after the duration', () => {
    expect(refusal(authored({ keyframes: [key(0), key(2000), key(1000)] }))).toBe(
      "keyframes[2].t must be after the previous item's t (2000).",
    );
    expect(refusal(authored({ keyframes: [key(0), key(0)] }))).toMatch(/^keyframes\[1\]\.t must be after/);
    expect(refusal(authored({ keyframes: [key(0), key(5000)] }))).toBe(
      "durationMs must be at least the last sample's and the last keyframe's t (5000).",
    );
  });

  it(`refuses more than ${MAX_KEYFRAMES} keyframes`, () => {
    const many = Array.from({ length: MAX_KEYFRAMES + 1 }, (_, i) => key(i));
    expect(refusal(authored({ durationMs: 5000, keyframes: many }))).toBe(`keyframes must hold at most ${MAX_KEYFRAMES} items.`);
    const most = Array.from({ length: MAX_KEYFRAMES }, (_, i) => key(i));
    expect(parseCameraPathFile(JSON.stringify(authored({ durationMs: 5000, keyframes: most }))).ok).toBe(true);
  });

  it('refuses samples out of order, and a path with nothing to play', () => {
    const sample = (t: number) => ({ ...key(t), easing: undefined, verticalFovDeg: 30 });
    expect(refusal(authored({ keyframes: undefined, samples: [sample(10), sample(5)] }))).toBe(
      "samples[1].t must be at or after the previous item's t (10).",
    );
    expect(refusal(authored({ keyframes: [], samples: [] }))).toBe(
      'keyframes: a path holds at least two keyframes or at least one sample.',
    );
  });
});
