import { CAMERA_PATH_LIMITS, type CameraPathDocument, type CameraPathKeyframe } from './camera-path.schema';
import { cameraPathDocumentErrors, cameraPathRuleErrors, isUnitQuaternion, knownFieldsOf } from './camera-path.validate';

const pose = { position: [0, 1.6, 8], quaternion: [0, 0, 0, 1], focalLengthMm: 35, focusDistanceM: 8, fNumber: 2.8, rollDeg: 0 };
const sample = (t: number) => ({ t, ...pose, verticalFovDeg: 32.2 });

const take = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  format: 'scene-studio.camera-path',
  formatVersion: 1,
  sceneVersion: null,
  recordedAt: '2026-11-26T10:00:00.000+01:00',
  durationMs: 100,
  video: { mimeType: 'video/webm;codecs=vp9', aspect: 1.777778 },
  coordinateSystem: 'gltf',
  sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
  samples: [sample(0), sample(16.7)],
  markers: [{ t: 5, label: 'Entrée 🎬', position: pose.position, quaternion: pose.quaternion }],
  ...overrides,
});

const named = (value: unknown, options = {}) => cameraPathDocumentErrors(value, options).map((e) => `${e.field} ${e.code}`);

describe(cameraPathDocumentErrors.name, () => {
  it('accepts a take, and an authored move with its optional fields', () => {
    expect(cameraPathDocumentErrors(take())).toEqual([]);
    expect(cameraPathDocumentErrors(take({ keyframes: [{ t: 0, ...pose, easing: 'hold' }], smoothing: 0 }))).toEqual([]);
  });

  it('names each broken field once, with its code, from where the document sits', () => {
    const doc = take({ sceneVersion: 0, durationMs: Infinity, video: { mimeType: 'vidéo', aspect: 1 }, keyframes: null, smoothing: null });
    delete doc.sensor;
    expect(named(doc, { at: 'document' })).toEqual([
      'document.sceneVersion too_small',
      'document.durationMs invalid_type',
      'document.video.mimeType invalid_characters',
      'document.sensor required',
      'document.keyframes invalid_type',
      'document.smoothing required',
    ]);
  });

  it('checks poses: ranges, tuples and their bounds, the exclusive field of view', () => {
    const samples = [
      { ...sample(0), verticalFovDeg: 180 },
      { ...sample(1), position: [0, 0, 100_001] },
      { ...sample(2), quaternion: [0, 0, 1] },
      { ...sample(3), position: ['0', 0, 0] },
    ];
    expect(named(take({ samples }))).toEqual([
      'samples[0].verticalFovDeg too_large',
      'samples[1].position too_large',
      'samples[2].quaternion invalid_length',
      'samples[3].position invalid_type',
    ]);
  });

  it('refuses unknown fields at every level for the API, and ignores them for a file', () => {
    const doc = take({ author: 'me', video: { mimeType: '', aspect: 1, fps: 30 }, samples: [{ ...sample(0), speed: 1 }] });
    expect(named(doc)).toEqual(['author unknown_field', 'video.fps unknown_field', 'samples[0].speed unknown_field']);
    expect(named(doc, { unknownFields: 'ignore' })).toEqual([]);
    expect(knownFieldsOf(doc)).toEqual(take({ video: { mimeType: '', aspect: 1 }, samples: [sample(0)] }));
  });

  it('refuses a list over its limit whole, without reading its items', () => {
    const samples = new Array(CAMERA_PATH_LIMITS.samples + 1).fill(null);
    expect(cameraPathDocumentErrors(take({ samples }))).toEqual([
      { field: 'samples', code: 'too_many', message: 'samples must hold at most 20000 items' },
    ]);
  });

  it('stops at `max`', () => {
    const samples = Array.from({ length: 500 }, (_, i) => ({ ...sample(i), fNumber: 0 }));
    expect(cameraPathDocumentErrors(take({ samples }), { max: 100 })).toHaveLength(100);
  });

  it('refuses what is not an object', () => {
    for (const value of [null, 1, 'x', [take()]]) expect(named(value)).toEqual([' invalid_type']);
  });
});

describe(cameraPathRuleErrors.name, () => {
  const doc = (overrides: Partial<CameraPathDocument> = {}) => ({ ...(take() as unknown as CameraPathDocument), ...overrides });

  it('accepts a take and a view', () => {
    expect(cameraPathRuleErrors('path', doc())).toEqual([]);
    expect(
      cameraPathRuleErrors(
        'view',
        doc({
          samples: [],
          durationMs: 0,
          keyframes: [{ t: 0, ...pose, easing: 'hold' } as CameraPathKeyframe],
        }),
      ),
    ).toEqual([]);
  });

  it("names the rules that span fields at the document's place", () => {
    const samples = [sample(10), sample(5)] as CameraPathDocument['samples'];
    expect(cameraPathRuleErrors('path', doc({ samples, durationMs: 1 }), { at: 'document' }).map((e) => `${e.field} ${e.code}`)).toEqual([
      'document.samples[1].t not_ascending',
      'document.durationMs too_small',
    ]);
  });
});

describe(isUnitQuaternion.name, () => {
  it('allows just under 1e-3 either way, and refuses more or what is not finite', () => {
    expect(isUnitQuaternion([0, 0, 0, 1.0009])).toBe(true);
    expect(isUnitQuaternion([0, 0, 0, 0.9991])).toBe(true);
    expect(isUnitQuaternion([0, 0, 0, 1.0011])).toBe(false);
    expect(isUnitQuaternion([Math.SQRT1_2, 0, 0, Math.SQRT1_2])).toBe(true);
    expect(isUnitQuaternion([Infinity, 0, 0, 1])).toBe(false);
  });
});
