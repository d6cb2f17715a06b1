import { moveDocument, pose, takeDocument, viewDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';

const ORIGIN = 'http://localhost:5173';
const BASE = '/studio-api/v1/camera-paths';
const MiB = 1024 * 1024;
type Doc = Record<string, unknown>;

/** A body as the test gives it: an object sent as JSON, or exact text (for what JSON.stringify cannot write, like 1e999). */
type Body = Record<string, unknown> | string;

const path = (document: Doc, extra: Doc = {}): Doc => ({ kind: 'path', name: 'Take', document, ...extra });
const view = (document: Doc = viewDocument(), extra: Doc = {}): Doc => ({ kind: 'view', name: 'View', document, ...extra });
const keyframe = (t: number, extra: Doc = {}) => ({
  t,
  ...pose(t),
  focalLengthMm: 35,
  focusDistanceM: 8,
  fNumber: 2.8,
  rollDeg: 0,
  easing: 'linear',
  ...extra,
});
const withSample = (i: number, extra: Doc) => {
  const doc = takeDocument(3);
  (doc.samples as Doc[])[i] = { ...(doc.samples as Doc[])[i], ...extra };
  return doc;
};

/**
 * The rules of a camera path document (docs/camera-paths.md, "The file") as the studio API
 * enforces them: each broken rule is `422 validation_failed` naming the field, array items by
 * index; and the body limits of these routes.
 */
describe('saved camera paths: what the studio API accepts', () => {
  const suite = setUpSuite({ studio: {}, worker: {}, org: { test: true } });
  let perform: { Authorization: string };
  let edit: { Authorization: string };
  let both: { Authorization: string };

  beforeAll(async () => {
    const sceneId = await readyScene(suite.api, suite.org);
    const bearer = async (mode: string) => {
      const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode });
      return { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
    };
    [perform, edit, both] = await Promise.all([bearer('perform'), bearer('edit'), bearer('edit_and_perform')]);
  });

  const post = (body: Body, bearer = perform) => {
    const req = suite.studio.http().post(BASE).set(bearer).set('Content-Type', 'application/json');
    return req.send(typeof body === 'string' ? body : JSON.stringify(body));
  };

  const tooMany = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

  it.each<[string, Body, [field: string, code: string][]]>([
    ['another format', path(takeDocument(3, { format: 'scene-studio.camera-move' })), [['document.format', 'invalid_value']]],
    ['another format version', path(takeDocument(3, { formatVersion: 2 })), [['document.formatVersion', 'invalid_value']]],
    ['another coordinate system', path(takeDocument(3, { coordinateSystem: 'y-up' })), [['document.coordinateSystem', 'invalid_value']]],
    [
      'a quaternion that is not a rotation',
      path(moveDocument(3, { keyframes: [keyframe(0), keyframe(1), keyframe(2, { quaternion: [0, 0, 0, 2] })] })),
      [['document.keyframes[2].quaternion', 'not_unit']],
    ],
    [
      'a quaternion of three numbers',
      path(withSample(1, { quaternion: [0, 0, 1] })),
      [['document.samples[1].quaternion', 'invalid_length']],
    ],
    [
      'a marker turned by a non-unit quaternion',
      path(takeDocument(3, { markers: [{ t: 1, label: 'M', position: [0, 0, 0], quaternion: [0, 0, 0, 0] }] })),
      [['document.markers[0].quaternion', 'not_unit']],
    ],
    ['samples out of order', path(withSample(2, { t: 1 })), [['document.samples[2].t', 'not_ascending']]],
    [
      'two keyframes at one time',
      path(moveDocument(3, { keyframes: [keyframe(0), keyframe(500), keyframe(500)] })),
      [['document.keyframes[2].t', 'not_ascending']],
    ],
    ['a duration shorter than the samples', path(takeDocument(3, { durationMs: 20 })), [['document.durationMs', 'too_small']]],
    ['a duration over an hour', path(takeDocument(3, { durationMs: 3_600_001 })), [['document.durationMs', 'too_large']]],
    ['1001 keyframes', path(moveDocument(2, { keyframes: tooMany(1001, (i) => keyframe(i)) })), [['document.keyframes', 'too_many']]],
    [
      '1001 markers',
      path(takeDocument(3, { markers: tooMany(1001, () => ({ t: 0, label: '', ...pose(0) })) })),
      [['document.markers', 'too_many']],
    ],
    [
      'a view of two keyframes',
      view(moveDocument(2, { durationMs: 0, keyframes: [keyframe(0), keyframe(0.5)] })),
      [['document.keyframes', 'invalid_count']],
    ],
    ['a view without a keyframe', view(takeDocument(1, { durationMs: 0 })), [['document.keyframes', 'invalid_count']]],
    ['a view that lasts', view(viewDocument({ durationMs: 10 })), [['document.durationMs', 'invalid_value']]],
    ['a path of one keyframe and no sample', path(moveDocument(1)), [['document.keyframes', 'invalid_count']]],
    ['an unknown field in the body', path(takeDocument(3), { sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE' }), [['sceneId', 'unknown_field']]],
    ['an unknown field in the document', path(takeDocument(3, { author: 'me' })), [['document.author', 'unknown_field']]],
    ['an unknown field in a sample', path(withSample(0, { speed: 2 })), [['document.samples[0].speed', 'unknown_field']]],
    [
      'an unknown field in a keyframe',
      path(moveDocument(2, { keyframes: [keyframe(0), keyframe(1, { tension: 1 })] })),
      [['document.keyframes[1].tension', 'unknown_field']],
    ],
    [
      'an unknown field in video',
      path(takeDocument(3, { video: { mimeType: '', aspect: 1, fps: 60 } })),
      [['document.video.fps', 'unknown_field']],
    ],
    [
      'Infinity (1e999) as a focal length',
      JSON.stringify(view()).replace('"focalLengthMm":35', '"focalLengthMm":1e999'),
      [['document.keyframes[0].focalLengthMm', 'invalid_type']],
    ],
    [
      '-1e999 in a position',
      JSON.stringify(path(takeDocument(3))).replace(/"position":\[[^,]+,/, '"position":[-1e999,'),
      [['document.samples[0].position', 'invalid_type']],
    ],
    ['"NaN" as a duration', path(takeDocument(3, { durationMs: 'NaN' })), [['document.durationMs', 'invalid_type']]],
    ['null as a focus distance', path(withSample(0, { focusDistanceM: null })), [['document.samples[0].focusDistanceM', 'required']]],
    ['a missing field', path(withSample(0, { verticalFovDeg: undefined })), [['document.samples[0].verticalFovDeg', 'required']]],
    ['a string for a number', path(withSample(0, { fNumber: '2.8' })), [['document.samples[0].fNumber', 'invalid_type']]],
    ['a position beyond 100 km', path(withSample(0, { position: [100_001, 0, 0] })), [['document.samples[0].position', 'too_large']]],
    [
      'a focal length under 12 mm',
      path(moveDocument(2, { keyframes: [keyframe(0, { focalLengthMm: 11.9 }), keyframe(1)] })),
      [['document.keyframes[0].focalLengthMm', 'too_small']],
    ],
    ['an aperture over f/32', path(withSample(2, { fNumber: 45 })), [['document.samples[2].fNumber', 'too_large']]],
    ['a roll past 180°', path(withSample(0, { rollDeg: -181 })), [['document.samples[0].rollDeg', 'too_small']]],
    ['a field of view of 180°', path(withSample(0, { verticalFovDeg: 180 })), [['document.samples[0].verticalFovDeg', 'too_large']]],
    [
      'an unknown easing',
      path(moveDocument(2, { keyframes: [keyframe(0, { easing: 'bounce' }), keyframe(1)] })),
      [['document.keyframes[0].easing', 'invalid_value']],
    ],
    ['smoothing over 1', path(moveDocument(2, { smoothing: 1.5 })), [['document.smoothing', 'too_large']]],
    ['null keyframes', path(takeDocument(3, { keyframes: null })), [['document.keyframes', 'invalid_type']]],
    ['samples that are not a list', path(takeDocument(3, { samples: { 0: {} } })), [['document.samples', 'invalid_type']]],
    [
      'a sample that is not an object',
      path(takeDocument(3, { samples: [takeDocument(1).samples as unknown[], 7].flat() })),
      [['document.samples[1]', 'invalid_type']],
    ],
    ['scene version 0', path(takeDocument(3, { sceneVersion: 0 })), [['document.sceneVersion', 'too_small']]],
    ['no scene version', path(takeDocument(3, { sceneVersion: undefined })), [['document.sceneVersion', 'required']]],
    ['a date that is not ISO 8601', path(takeDocument(3, { recordedAt: 'Thursday' })), [['document.recordedAt', 'invalid_format']]],
    [
      'a date that does not exist',
      path(takeDocument(3, { recordedAt: '2026-02-30T10:00:00Z' })),
      [['document.recordedAt', 'invalid_format']],
    ],
    ['an aspect of 0', path(takeDocument(3, { video: { mimeType: '', aspect: 0 } })), [['document.video.aspect', 'too_small']]],
    [
      'a control character in the video type',
      path(takeDocument(3, { video: { mimeType: 'video/webm\n', aspect: 1 } })),
      [['document.video.mimeType', 'invalid_characters']],
    ],
    ['no sensor', path(takeDocument(3, { sensor: undefined })), [['document.sensor', 'required']]],
    ['a document that is a list', path([] as unknown as Doc), [['document', 'invalid_type']]],
    ['no kind', { name: 'x', document: viewDocument() }, [['kind', 'required']]],
    ['another kind', view(viewDocument(), { kind: 'take' }), [['kind', 'invalid_value']]],
    ['a name of 61 characters', view(viewDocument(), { name: 'x'.repeat(61) }), [['name', 'too_long']]],
    ['an empty name', view(viewDocument(), { name: '' }), [['name', 'too_short']]],
    ['a blank name', view(viewDocument(), { name: '   ' }), [['name', 'blank']]],
    ['a control character in the name', view(viewDocument(), { name: 'Over\u0000the lake' }), [['name', 'invalid_characters']]],
    ['a bidirectional override in the name', view(viewDocument(), { name: 'Over \u202Ethe lake' }), [['name', 'invalid_characters']]],
    ['an unpaired surrogate in the name', view(viewDocument(), { name: 'Over \ud800 the lake' }), [['name', 'invalid_characters']]],
    [
      'a control character in a marker label',
      path(takeDocument(3, { markers: [{ t: 0, label: 'a\u0007', ...pose(0) }] })),
      [['document.markers[0].label', 'invalid_characters']],
    ],
  ])('%s → 422 naming the field', async (_, body, expected) => {
    const res = await post(body);
    expectProblem(res, 422, 'validation_failed');
    expect(res.headers['cache-control']).toBe('no-store');
    const named = res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]);
    expect(named).toEqual(expect.arrayContaining(expected));
    for (const e of res.body.errors)
      expect(e).toEqual({ field: expect.any(String), code: expect.any(String), message: expect.any(String) });
    // Nothing internal: no class, SQL or stack words.
    expect(res.text).not.toMatch(/CameraPath\w*Dto|constraint|SELECT|INSERT|\bat \w+ \(|node_modules/);
  });

  it('accepts the edges: 60-character names, 1000 keyframes, a view at null scene version, unicode names', async () => {
    for (const body of [
      view(viewDocument(), { name: 'x'.repeat(60) }),
      view(viewDocument({ sceneVersion: null }), { name: 'Über den See 🌲, 走' }),
      path(moveDocument(1000)),
      path(takeDocument(3, { durationMs: 3_600_000 })),
    ]) {
      const res = await post(body);
      expect(res.status).toBe(201);
    }
  });

  it('takes a 20 000-sample take of megabytes and gives it back unchanged; refuses 20 001 samples', async () => {
    const take = takeDocument(20_000);
    const text = JSON.stringify(path(take));
    expect(text.length).toBeGreaterThan(3 * MiB);
    const saved = await post(text);
    expect(saved.status).toBe(201);
    const read = await suite.studio.http().get(`${BASE}/${saved.body.cameraPathId}`).set(perform);
    expect(read.body.document).toEqual(take);
    const list = await suite.studio.http().get(`${BASE}?kind=path`).set(perform);
    expect(list.body.cameraPaths.find((p: { cameraPathId: string }) => p.cameraPathId === saved.body.cameraPathId).sampleCount).toBe(
      20_000,
    );

    const over = await post(path(takeDocument(20_001)));
    expectProblem(over, 422, 'validation_failed');
    expect(over.body.errors).toEqual([{ field: 'document.samples', code: 'too_many', message: 'samples must hold at most 20000 items' }]);
  });

  it('lists at most 100 errors, however many samples break a rule', async () => {
    const take = takeDocument(5000);
    for (const s of take.samples as Doc[]) s.fNumber = 0.5;
    const res = await post(path(take));
    expectProblem(res, 422, 'validation_failed');
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors[99]).toEqual({
      field: 'document.samples[99].fNumber',
      code: 'too_small',
      message: 'fNumber must be at least 1',
    });
  });

  it('reads bodies up to 8 MiB for perform sessions, and answers 413 beyond', async () => {
    const body = JSON.stringify(view());
    const atLimit = body + ' '.repeat(8 * MiB - Buffer.byteLength(body));
    expect((await post(atLimit)).status).toBe(201);
    const over = await post(atLimit + ' ');
    expectProblem(over, 413, 'payload_too_large');
    expect(over.body.detail).toContain('8 MiB');
    expect(over.headers['cache-control']).toBe('no-store');
    const changed = await post(body);
    const put = await suite.studio
      .http()
      .put(`${BASE}/${changed.body.cameraPathId}`)
      .set(perform)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x', document: viewDocument() }) + ' '.repeat(8 * MiB));
    expectProblem(put, 413, 'payload_too_large');
  });

  it('keeps 64 KiB for every other route; a session that may not perform is 403 and no session 401, before any body', async () => {
    const big = JSON.stringify(view()) + ' '.repeat(70 * 1024);
    expect((await post(big)).status).toBe(201);
    // The mode is checked before the body is read, whatever its size.
    expectProblem(await post(big, edit), 403, 'forbidden');
    // Answered before the body is read, as the partner API answers an unknown key.
    expectProblem(await post(big, { Authorization: `Bearer ${'A'.repeat(43)}` }), 401, 'unauthenticated');
    const edits = await suite.studio
      .http()
      .post('/studio-api/v1/edits')
      .set(both)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ instruction: 'add fog' }) + ' '.repeat(70 * 1024));
    expectProblem(edits, 413, 'payload_too_large');
    expect(edits.body.detail).toContain('64 KiB');
  });

  it('JSON only: other types 415, broken or non-object JSON and repeated keys 400 invalid_json', async () => {
    const text = suite.studio.http().post(BASE).set(perform).set('Content-Type', 'text/plain').send(JSON.stringify(view()));
    expectProblem(await text, 415, 'unsupported_media_type');
    for (const body of ['', '{', '[]', '"view"', '{"kind":"view","kind":"path","name":"x","document":{}}']) {
      expectProblem(await post(body), 400, 'invalid_json');
    }
  });
});
