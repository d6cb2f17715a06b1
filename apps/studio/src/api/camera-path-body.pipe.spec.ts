import { CreateCameraPathDto, UpdateCameraPathDto } from '@app/camera-paths';
import { DomainError, DomainValidationPipe } from '@app/core';
import { CameraPathBodyPipe } from './camera-path-body.pipe';

const pose = { position: [0, 1.6, 8], quaternion: [0, 0, 0, 1], focalLengthMm: 35, focusDistanceM: 8, fNumber: 2.8, rollDeg: 0 };
const sample = (t: number) => ({ t, ...pose, verticalFovDeg: 32.2 });

function body(document: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) {
  return {
    kind: 'path',
    name: 'Take 1',
    document: {
      format: 'scene-studio.camera-path',
      formatVersion: 1,
      sceneVersion: 2,
      recordedAt: '2026-11-26T10:00:00.000Z',
      durationMs: 100,
      video: { mimeType: 'video/webm;codecs=vp9', aspect: 1.777778 },
      coordinateSystem: 'gltf',
      sensor: { widthMm: 36, heightMm: 24, filmGaugeMm: 36 },
      samples: [sample(0), sample(16.7), sample(33.3)],
      markers: [],
      ...document,
    },
    ...rest,
  };
}

/** What a pipe answers: the value, or the errors of its `validation_failed` as a sorted list. */
async function outcome(run: () => Promise<unknown>): Promise<{ value?: unknown; errors?: string[]; code?: string }> {
  try {
    return { value: JSON.parse(JSON.stringify(await run())) };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { code: e.code, errors: (e.errors ?? []).map((f) => `${f.field} ${f.code} ${f.message}`).sort() };
  }
}

describe(CameraPathBodyPipe.name, () => {
  const sut = new CameraPathBodyPipe();
  const dto = new DomainValidationPipe();

  it.each<[string, unknown]>([
    ['a valid take', body()],
    ['a valid authored move', body({ samples: [], keyframes: [{ t: 0, ...pose, easing: 'hold' }], smoothing: 1 })],
    ['a bad sample among good ones', body({ samples: [sample(0), { ...sample(1), quaternion: [0, 0, 1] }, { ...sample(2), x: 1 }] })],
    ['bad samples and other bad fields', body({ samples: [{ ...sample(0), t: '0' }], format: 'x', video: { aspect: 0 } }, { name: '' })],
    ['samples that are not objects', body({ samples: [1, sample(0)] })],
    [
      'a keyframe with a short quaternion',
      body({
        keyframes: [
          { t: 0, ...pose, easing: 'linear' },
          { t: 1, ...pose, quaternion: [1], easing: 'x' },
        ],
      }),
    ],
    ['an unknown field in the body', body({}, { extra: true })],
    ['samples that are not an array', body({ samples: 'many' })],
    ['a document that is not an object', { kind: 'view', name: 'x', document: [1] }],
    ['no document', { kind: 'view', name: 'x' }],
    ['a body that is not an object', [body()]],
  ])('answers as the DTO alone: %s', async (_, value) => {
    const expected = await outcome(() => dto.transform(value, { type: 'body', metatype: CreateCameraPathDto }));
    expect(await outcome(() => sut.transform(value, { type: 'custom', metatype: CreateCameraPathDto }))).toEqual(expected);
  });

  it('names array items by index, as docs/camera-paths.md says', async () => {
    const keyframes = [0, 1, 2].map((t) => ({ t, ...pose, easing: 'linear' }));
    keyframes[2].quaternion = [0, 0, 1];
    const res = await outcome(() => sut.transform(body({ keyframes }), { type: 'custom', metatype: CreateCameraPathDto }));
    expect(res.errors).toEqual(['document.keyframes[2].quaternion invalid_length quaternion must hold exactly 4 numbers']);
  });

  it('returns the DTO with the plain samples back in place', async () => {
    const value = body();
    const result = (await sut.transform(value, { type: 'custom', metatype: CreateCameraPathDto })) as CreateCameraPathDto;
    expect(result).toBeInstanceOf(CreateCameraPathDto);
    expect(result.document.samples).toBe(value.document.samples);
  });

  it('takes a PUT body (no kind) the same way, and refuses a kind there', async () => {
    const { kind: _kind, ...update } = body();
    await expect(sut.transform(update, { type: 'custom', metatype: UpdateCameraPathDto })).resolves.toBeInstanceOf(UpdateCameraPathDto);
    const res = await outcome(() => sut.transform(body(), { type: 'custom', metatype: UpdateCameraPathDto }));
    expect(res.errors).toEqual(['kind unknown_field kind is not a known field']);
  });
});
