import fc from 'fast-check';
import { takeDocument, viewDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { setUpSuite } from '../support/suite';
import { cameraPathBodyTexts, fire, FuzzRequest, HOSTILE_TEXT, pct } from './fuzz-support';

const CAMERA_PATHS = '/studio-api/v1/camera-paths';

/**
 * A seeded fuzz of the studio origin: the embed page and the session-scoped studio API, with the
 * secrets of live sessions in each mode, of a revoked one and of none, junk versions and hostile
 * edit instructions and bodies, and saved camera paths (junk ids, mangled documents). Same rules as the partner API's fuzz: no 5xx, every error a
 * documented problem with its request id (the embed page's own ended page aside), nothing
 * internal and no secret in an answer. FUZZ_SEED and FUZZ_REQUESTS replay or widen a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const REQUESTS = Math.ceil(Number(process.env.FUZZ_REQUESTS ?? 5000) / 3);
const CONCURRENCY = 8;

describe('fuzzing the studio origin', () => {
  const suite = setUpSuite({ studio: {}, worker: {} });
  const secrets: Record<'edit' | 'perform' | 'revoked', string> = { edit: '', perform: '', revoked: '' };
  const sessionIds: string[] = [];
  const cameraPathIds: string[] = [];

  beforeAll(async () => {
    const sceneId = await readyScene(suite.api, suite.org);
    for (const mode of ['edit', 'perform', 'edit_and_perform'] as const) {
      const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: 'http://localhost:5173', mode });
      const { secret, sessionId } = parseEmbedUrl(res.body.url);
      sessionIds.push(sessionId);
      if (mode === 'edit') secrets.edit = secret;
      if (mode === 'perform') secrets.perform = secret;
      if (mode === 'edit_and_perform') {
        secrets.revoked = secret;
        expect((await suite.api.http().delete(`/v1/embed-sessions/${sessionId}`).set(suite.org.auth)).status).toBe(204);
      }
    }
    for (const body of [
      { kind: 'view', name: 'Saved view', document: viewDocument() },
      { kind: 'path', name: 'Saved take', document: takeDocument(10) },
    ]) {
      const res = await suite.studio
        .http()
        .post(CAMERA_PATHS)
        .set({ Authorization: `Bearer ${secrets.perform}` })
        .send(body);
      expect(res.status).toBe(201);
      cameraPathIds.push(res.body.cameraPathId);
    }
  });

  function requests(): FuzzRequest[] {
    const version = fc.oneof(
      { arbitrary: fc.constantFrom('1', '2', '0', '-1', '01', '1.5', '9007199254740993', '1e3', '%201'), weight: 3 },
      { arbitrary: fc.constantFrom(...HOSTILE_TEXT).map((t) => pct(t).slice(0, 3000) || 'x'), weight: 1 },
    );
    const cameraPathId = fc.oneof(
      { arbitrary: fc.constantFrom(...cameraPathIds), weight: 3 },
      {
        arbitrary: fc.constantFrom('cam_01JD3Z8Q4W6K2M9T5X7B1C0VHE', `cam_${'Z'.repeat(26)}`, 'cam_', 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE'),
        weight: 1,
      },
      { arbitrary: fc.constantFrom(...HOSTILE_TEXT).map((t) => pct(t).slice(0, 3000) || 'x'), weight: 1 },
    );
    const route = fc.oneof(
      fc.constantFrom(
        ['GET', CAMERA_PATHS],
        ['GET', `${CAMERA_PATHS}?kind=view`],
        ['GET', `${CAMERA_PATHS}?kind=path&kind=view`],
        ['POST', CAMERA_PATHS],
        ['POST', CAMERA_PATHS],
        ['PATCH', `${CAMERA_PATHS}/${cameraPathIds[0]}`],
        ['PUT', CAMERA_PATHS],
      ),
      fc.constantFrom(...HOSTILE_TEXT).map((t) => ['GET', `${CAMERA_PATHS}?kind=${pct(t).slice(0, 3000)}`]),
      cameraPathId.map((id) => ['GET', `${CAMERA_PATHS}/${id}`]),
      cameraPathId.map((id) => ['PUT', `${CAMERA_PATHS}/${id}`]),
      cameraPathId.map((id) => ['DELETE', `${CAMERA_PATHS}/${id}`]),
      fc.constantFrom(
        ['GET', '/studio-api/v1/session'],
        ['GET', '/studio-api/v1/source-image'],
        ['GET', '/studio-api/v1/edits'],
        ['POST', '/studio-api/v1/edits'],
        ['DELETE', '/studio-api/v1/edits'],
        ['PUT', '/studio-api/v1/session'],
        ['GET', '/studio-api/v1/'],
        ['GET', '/studio-api/v2/session'],
        ['OPTIONS', '/studio-api/v1/session'],
      ),
      version.map((v) => ['GET', `/studio-api/v1/scene/versions/${v}/scene.glb`]),
      version.map((v) => ['GET', `/studio-api/v1/scene/versions/${v}/spec`]),
      version.map((v) => ['GET', `/studio-api/v1/scene/versions/${v}/artifacts`]),
      version.map((v) => ['POST', `/studio-api/v1/scene/versions/${v}:revert`]),
      fc
        .tuple(
          version,
          fc.oneof(
            fc.constantFrom('mesh', 'splat', 'splat-preview', 'collider', 'panorama', 'thumbnail', 'MESH', '..', '%2e%2e'),
            fc.string({ maxLength: 40 }).map(pct),
          ),
        )
        .map(([v, kind]) => ['GET', `/studio-api/v1/scene/versions/${v}/artifacts/${kind || 'x'}`]),
      fc
        .oneof(
          fc.constantFrom(...sessionIds),
          fc.constantFrom(...HOSTILE_TEXT).map((t) => pct(t).slice(0, 3000) || 'x'),
          fc.constant(`es_${'A'.repeat(26)}`),
        )
        .map((id) => ['GET', `/embed/${id}`]),
    );
    const secret = fc.oneof(
      { arbitrary: fc.constantFrom(secrets.edit, secrets.perform), weight: 6 },
      { arbitrary: fc.constant(secrets.revoked), weight: 1 },
      { arbitrary: fc.constantFrom('', 'x', `${secrets.edit}x`, secrets.edit.slice(0, -1), suite.org.apiKey), weight: 1 },
    );
    const instruction = fc.oneof(fc.constantFrom(...HOSTILE_TEXT), fc.string({ maxLength: 300 }), fc.constant('Make the sky stormy'));
    const body = fc.oneof(
      {
        arbitrary: instruction.map((i) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify({ instruction: i })) })),
        weight: 4,
      },
      { arbitrary: cameraPathBodyTexts().map((text) => ({ type: 'application/json', bytes: Buffer.from(text) })), weight: 4 },
      {
        arbitrary: fc
          .jsonValue({ maxDepth: 4 })
          .map((v) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify(v) ?? 'null') })),
        weight: 1,
      },
      { arbitrary: fc.string({ maxLength: 200 }).map((s) => ({ type: 'application/json', bytes: Buffer.from(s) })), weight: 1 },
      {
        arbitrary: fc
          .constantFrom('text/plain', 'multipart/form-data; boundary=x', '')
          .map((type) => ({ type, bytes: Buffer.from('{"instruction":"x"}') })),
        weight: 1,
      },
      {
        arbitrary: fc.constant({ type: 'application/json', bytes: Buffer.from(JSON.stringify({ instruction: 'x'.repeat(70 * 1024) })) }),
        weight: 1,
      },
    );
    return fc.sample(
      fc
        .tuple(route, secret, body, fc.constantFrom('http://localhost:5173', 'https://evil.example', 'null', ''))
        .map(([[method, path], s, b, origin]) => {
          const headers: Record<string, string> = {};
          if (s) headers.authorization = `Bearer ${s}`;
          if (origin) headers.origin = origin;
          const sendsBody = method === 'POST' || method === 'PUT';
          if (sendsBody && b.type) headers['content-type'] = b.type;
          return { method, path, headers, body: sendsBody ? b.bytes : undefined };
        }),
      { seed: SEED, numRuns: REQUESTS },
    );
  }

  it(`seeded requests (seed ${SEED}): no 5xx, every error a documented problem, no secret or internals`, async () => {
    const all = requests();
    const secretValues = [secrets.edit, secrets.perform, secrets.revoked, suite.org.apiKey];
    const { failures, statuses } = await fire(suite.studio.url, all, CONCURRENCY, secretValues, /^\/embed\//);
    expect(failures.slice(0, 20)).toEqual([]);
    // Deep code was reached: files served, edits accepted, camera paths saved and deleted, modes and sessions refused.
    expect(Object.keys(statuses).map(Number)).toEqual(expect.arrayContaining([200, 201, 202, 204, 400, 401, 403, 404, 422]));
    expect((await suite.studio.http().get('/readyz')).status).toBe(200);
  });
});
