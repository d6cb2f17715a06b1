import { CreateCameraPathDto, UpdateCameraPathDto } from '@app/camera-paths';
import { DomainError } from '@app/core';
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
  const run = (value: unknown, metatype: typeof UpdateCameraPathDto = CreateCameraPathDto) =>
    outcome(() => sut.transform(value, { type: 'custom', metatype }));

  it('returns the DTO with the document as sent', async () => {
    const value = body({
      samples: [],
      keyframes: [
        { t: 0, ...pose, easing: 'hold' },
        { t: 100, ...pose, easing: 'linear' },
      ],
      smoothing: 1,
    });
    const result = (await sut.transform(value, { type: 'custom', metatype: CreateCameraPathDto })) as CreateCameraPathDto;
    expect(result).toBeInstanceOf(CreateCameraPathDto);
    expect(result.document).toEqual(value.document);
  });

  it("lists the body's errors and the document's together, named from the body", async () => {
    const res = await run(body({ samples: [{ ...sample(0), t: '0' }], format: 'x', video: { aspect: 0 } }, { name: '' }));
    expect(res.code).toBe('validation_failed');
    expect(res.errors).toEqual([
      'document.format invalid_value format must be "scene-studio.camera-path"',
      'document.samples[0].t invalid_type t must be a finite number',
      'document.video.aspect too_small aspect must be at least 0.1',
      'document.video.mimeType required mimeType is required',
      'name too_short name must be at least 1 character long',
    ]);
  });

  it('names array items by index, as docs/camera-paths.md says', async () => {
    const keyframes = [0, 1, 2].map((t) => ({ t, ...pose, easing: 'linear' }));
    keyframes[2].quaternion = [0, 0, 1];
    expect((await run(body({ keyframes }))).errors).toEqual([
      'document.keyframes[2].quaternion invalid_length quaternion must hold exactly 4 numbers',
    ]);
    expect((await run(body({ samples: [1, sample(0)] }))).errors).toEqual([
      'document.samples[0] invalid_type each item of samples must be an object',
    ]);
  });

  it('refuses unknown fields at every level', async () => {
    const res = await run(body({ extra: 1, video: { mimeType: '', aspect: 1, fps: 30 } }, { sceneId: 'x' }));
    expect(res.errors).toEqual([
      'document.extra unknown_field document.extra is not a known field',
      'document.video.fps unknown_field document.video.fps is not a known field',
      'sceneId unknown_field sceneId is not a known field',
    ]);
  });

  it('answers a missing or non-object document, and a body that is not an object, as the DTO does', async () => {
    expect((await run({ kind: 'view', name: 'x' })).errors).toEqual([
      'document invalid_type document must be an object',
      'document required document is required',
    ]);
    expect((await run({ kind: 'view', name: 'x', document: [1] })).errors).toEqual(['document invalid_type document must be an object']);
    expect(await run([body()])).toEqual({ code: 'invalid_json', errors: [] });
  });

  it('stops at 100 errors, however many samples break a rule', async () => {
    const res = await run(body({ samples: Array.from({ length: 500 }, (_, i) => ({ ...sample(i), fNumber: 40 })) }, { name: '' }));
    expect(res.errors).toHaveLength(100);
    expect(res.errors).toContain('name too_short name must be at least 1 character long');
  });

  it('takes a PUT body (no kind) the same way, and refuses a kind there', async () => {
    const { kind: _kind, ...update } = body();
    await expect(sut.transform(update, { type: 'custom', metatype: UpdateCameraPathDto })).resolves.toBeInstanceOf(UpdateCameraPathDto);
    expect((await run(body(), UpdateCameraPathDto)).errors).toEqual(['kind unknown_field kind is not a known field']);
  });
});
