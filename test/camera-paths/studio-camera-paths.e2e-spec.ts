import { ManualClock } from '@app/core';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { moveDocument, takeDocument, viewDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { expectProblem } from '../support/problems';
import { setUpSuite } from '../support/suite';
import { stored } from '../support/stored';

const ORIGIN = 'http://localhost:5173';
const BASE = '/studio-api/v1/camera-paths';
const UNKNOWN_ID = 'cam_01JD3Z8Q4W6K2M9T5X7B1C0VHE';
type Mode = 'edit' | 'perform' | 'edit_and_perform';
type Bearer = { Authorization: string };

/** The fields of a saved path, exactly: nothing else (no organization, scene or internal column) is in an answer. */
const SAVED_KEYS = ['cameraPathId', 'createdAt', 'document', 'kind', 'name', 'updatedAt'];
const SUMMARY_KEYS = ['cameraPathId', 'createdAt', 'durationMs', 'keyframeCount', 'kind', 'name', 'sampleCount', 'updatedAt'];

/**
 * Saved camera paths on the studio API (docs/camera-paths.md, "Saved camera paths"): per scene,
 * for perform sessions only, scoped to the session's organization and scene, gone with the
 * scene. Validation of the documents themselves: camera-path-validation.e2e-spec.ts.
 */
describe('saved camera paths (studio API)', () => {
  const clock = new ManualClock();
  const suite = setUpSuite({ api: { clock }, studio: { clock }, worker: {}, org: { test: true } });
  const db = () => suite.api.app.get(DataSource);
  let other: TestOrganization;
  let sceneId: string;
  let otherSceneId: string;

  beforeAll(async () => {
    other = await createOrganization(suite.api.app, { test: true });
    [sceneId, otherSceneId] = await Promise.all([readyScene(suite.api, suite.org), readyScene(suite.api, suite.org)]);
  });

  beforeEach(() => clock.set(Date.now()));

  async function session(mode: Mode = 'perform', scene = sceneId, org = suite.org, extra: Record<string, unknown> = {}) {
    const res = await createEmbedSession(suite.api, org, { sceneId: scene, origin: ORIGIN, mode, ...extra });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId as string, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  const studio = () => suite.studio.http();
  const create = (bearer: Bearer, body: Record<string, unknown>) => studio().post(BASE).set(bearer).send(body);
  const list = (bearer: Bearer, query = '') => studio().get(`${BASE}${query}`).set(bearer);

  async function saved(bearer: Bearer, kind: 'path' | 'view', name: string, document: Record<string, unknown>) {
    const res = await create(bearer, { kind, name, document });
    if (res.status !== 201) throw new Error(`save failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { cameraPathId: string; createdAt: string; updatedAt: string };
  }

  const pathRows = (scene: string) => stored(db()).cameraPathCount(scene);

  /** A problem body without its request id: what must be identical between two misses. */
  const withoutRequestId = (res: Response) => ({ ...res.body, requestId: undefined });

  it('round trip: save, read, list, change (the kind stays), delete; every answer no-store', async () => {
    const { bearer } = await session('perform');
    const document = moveDocument(3);
    const created = await create(bearer, { kind: 'path', name: 'Dolly in', document });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(Object.keys(created.body).sort()).toEqual(SAVED_KEYS);
    expect(created.body).toEqual({
      cameraPathId: expect.stringMatching(/^cam_[0-9A-HJKMNP-TV-Z]{26}$/),
      kind: 'path',
      name: 'Dolly in',
      document,
      createdAt: new Date(clock.now()).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
    });
    const id = created.body.cameraPathId as string;

    const read = await studio().get(`${BASE}/${id}`).set(bearer);
    expect(read.status).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    expect(read.body).toEqual(created.body);

    const listed = await list(bearer);
    expect(listed.status).toBe(200);
    expect(listed.headers['cache-control']).toBe('no-store');
    const summary = listed.body.cameraPaths.find((p: { cameraPathId: string }) => p.cameraPathId === id);
    expect(Object.keys(summary).sort()).toEqual(SUMMARY_KEYS);
    expect(summary).toEqual({
      cameraPathId: id,
      kind: 'path',
      name: 'Dolly in',
      durationMs: 2000,
      keyframeCount: 3,
      sampleCount: 0,
      createdAt: created.body.createdAt,
      updatedAt: created.body.updatedAt,
    });

    clock.advance(60_000);
    const take = takeDocument(40);
    const changed = await studio().put(`${BASE}/${id}`).set(bearer).send({ name: 'Dolly in, take 2', document: take });
    expect(changed.status).toBe(200);
    expect(changed.headers['cache-control']).toBe('no-store');
    expect(changed.body).toEqual({
      ...created.body,
      name: 'Dolly in, take 2',
      document: take,
      updatedAt: new Date(clock.now()).toISOString(),
    });
    expect((await studio().get(`${BASE}/${id}`).set(bearer)).body).toEqual(changed.body);
    expect((await list(bearer)).body.cameraPaths.find((p: { cameraPathId: string }) => p.cameraPathId === id)).toMatchObject({
      kind: 'path',
      keyframeCount: 0,
      sampleCount: 40,
      durationMs: take.durationMs,
    });

    const deleted = await studio().delete(`${BASE}/${id}`).set(bearer);
    expect(deleted.status).toBe(204);
    expect(deleted.headers['cache-control']).toBe('no-store');
    expect(deleted.text).toBe('');
    const gone = await studio().get(`${BASE}/${id}`).set(bearer);
    expectProblem(gone, 404, 'not_found');
    expect(gone.headers['cache-control']).toBe('no-store');
    expect((await studio().delete(`${BASE}/${id}`).set(bearer)).status).toBe(204);
    expectProblem(await studio().put(`${BASE}/${id}`).set(bearer).send({ name: 'x', document: take }), 404, 'not_found');
  });

  it('lists newest first, every perform session of the scene the same list, filtered by kind', async () => {
    const scene = await readyScene(suite.api, suite.org);
    const a = await session('perform', scene);
    const b = await session('edit_and_perform', scene);
    const first = await saved(a.bearer, 'view', 'Wide', viewDocument());
    clock.advance(1000);
    const second = await saved(b.bearer, 'path', 'Take 1', takeDocument(5));
    clock.advance(1000);
    const third = await saved(a.bearer, 'view', 'Close', viewDocument());
    // Two in the same millisecond are still ordered: the id (a ULID) breaks the tie.
    const fourth = await saved(b.bearer, 'path', 'Move', moveDocument(2));

    const ids = (res: Response) => res.body.cameraPaths.map((p: { cameraPathId: string }) => p.cameraPathId);
    const all = await list(b.bearer);
    expect(ids(all)).toEqual([fourth, third, second, first].map((p) => p.cameraPathId));
    expect(ids(await list(a.bearer))).toEqual(ids(all));
    expect(ids(await list(a.bearer, '?kind=view'))).toEqual([third, first].map((p) => p.cameraPathId));
    expect(ids(await list(a.bearer, '?kind=path'))).toEqual([fourth, second].map((p) => p.cameraPathId));

    for (const query of ['?kind=take', '?kind=', '?kind=path&kind=view', '?order=asc', '?KIND=view']) {
      const res = await list(a.bearer, query);
      expectProblem(res, 422, 'validation_failed');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it("PUT keeps the kind: a kind in the body is refused, and the document must suit the path's kind", async () => {
    const { bearer } = await session('perform');
    const view = await saved(bearer, 'view', 'Keep me a view', viewDocument());
    const asPath = await studio()
      .put(`${BASE}/${view.cameraPathId}`)
      .set(bearer)
      .send({ kind: 'path', name: 'x', document: takeDocument(3) });
    expectProblem(asPath, 422, 'validation_failed');
    expect(asPath.body.errors).toEqual([expect.objectContaining({ field: 'kind', code: 'unknown_field' })]);
    const twoKeyframes = await studio()
      .put(`${BASE}/${view.cameraPathId}`)
      .set(bearer)
      .send({ name: 'x', document: moveDocument(2) });
    expectProblem(twoKeyframes, 422, 'validation_failed');
    expect(twoKeyframes.body.errors.map((e: { field: string; code: string }) => `${e.field} ${e.code}`)).toEqual(
      expect.arrayContaining(['document.keyframes invalid_count']),
    );
    const renamed = await studio().put(`${BASE}/${view.cameraPathId}`).set(bearer).send({ name: 'Renamed', document: viewDocument() });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ kind: 'view', name: 'Renamed' });
  });

  describe('what each mode may do, endpoint by endpoint', () => {
    const endpoints: Array<[string, (bearer: Bearer, id: string) => Promise<Response>, number]> = [
      ['list', (bearer) => list(bearer), 200],
      ['list a kind', (bearer) => list(bearer, '?kind=view'), 200],
      ['save', (bearer) => create(bearer, { kind: 'view', name: 'Matrix', document: viewDocument() }), 201],
      ['read', (bearer, id) => studio().get(`${BASE}/${id}`).set(bearer), 200],
      ['change', (bearer, id) => studio().put(`${BASE}/${id}`).set(bearer).send({ name: 'Matrix 2', document: viewDocument() }), 200],
      ['delete', (bearer, id) => studio().delete(`${BASE}/${id}`).set(bearer), 204],
    ];
    const modes: Mode[] = ['edit', 'perform', 'edit_and_perform'];

    it.each(endpoints.flatMap(([name, call, allowed]) => modes.map((mode) => [name, mode, call, allowed] as const)))(
      '%s in %s mode',
      async (_, mode, call, allowed) => {
        const owner = await session('perform');
        const { cameraPathId } = await saved(owner.bearer, 'view', 'Target', viewDocument());
        const res = await call((await session(mode)).bearer, cameraPathId);
        if (mode === 'edit') expectProblem(res, 403, 'forbidden');
        else expect(res.status).toBe(allowed);
        expect(res.headers['cache-control']).toBe('no-store');
      },
    );

    it.each(endpoints.map(([name, call]) => [name, call] as const))(
      '%s: a revoked, an expired or no session → 401, as every studio route',
      async (_, call) => {
        const owner = await session('perform');
        const { cameraPathId } = await saved(owner.bearer, 'view', 'Target', viewDocument());
        const revoked = await session('perform');
        await suite.api.http().delete(`/v1/embed-sessions/${revoked.id}`).set(suite.org.auth);
        const expiring = await session('perform', sceneId, suite.org, { expiresInSeconds: 300 });
        clock.advance(300_000);

        const revokedRes = await call(revoked.bearer, cameraPathId);
        expectProblem(revokedRes, 401, 'session_ended');
        expect(revokedRes.body.reason).toBe('revoked');
        const expiredRes = await call(expiring.bearer, cameraPathId);
        expectProblem(expiredRes, 401, 'session_ended');
        expect(expiredRes.body.reason).toBe('expired');
        for (const bearer of [{ Authorization: `Bearer ${'A'.repeat(43)}` }, { Authorization: '' }]) {
          const res = await call(bearer, cameraPathId);
          expectProblem(res, 401, 'unauthenticated');
          expect(res.headers['www-authenticate']).toBe('Bearer');
          expect(res.headers['cache-control']).toBe('no-store');
        }
        // The path is still there for a live session.
        clock.set(Date.now());
        expect((await studio().get(`${BASE}/${cameraPathId}`).set(owner.bearer)).status).toBe(200);
      },
    );
  });

  describe("another scene's and another organization's paths do not exist", () => {
    it('GET and PUT → 404 with identical bodies (apart from requestId); DELETE → 204 and the path stays', async () => {
      const foreignScene = await readyScene(suite.api, other);
      const owner = await session('perform');
      const { cameraPathId } = await saved(owner.bearer, 'path', 'Mine', takeDocument(3));
      const otherScene = await session('perform', otherSceneId);
      const otherOrg = await session('perform', foreignScene, other);
      const put = { name: 'Stolen', document: takeDocument(3) };

      for (const method of ['get', 'put'] as const) {
        const send = (bearer: Bearer, id: string) =>
          method === 'get' ? studio().get(`${BASE}/${id}`).set(bearer) : studio().put(`${BASE}/${id}`).set(bearer).send(put);
        const misses = [
          await send(otherScene.bearer, cameraPathId),
          await send(otherOrg.bearer, cameraPathId),
          await send(owner.bearer, UNKNOWN_ID),
        ];
        for (const miss of misses) {
          expectProblem(miss, 404, 'not_found');
          expect(miss.headers['cache-control']).toBe('no-store');
          expect(withoutRequestId(miss)).toEqual(withoutRequestId(misses[0]));
          expect(JSON.stringify(miss.body)).not.toContain(cameraPathId);
        }
      }
      for (const bearer of [otherScene.bearer, otherOrg.bearer]) {
        expect((await studio().delete(`${BASE}/${cameraPathId}`).set(bearer)).status).toBe(204);
        expect((await list(bearer)).body.cameraPaths.map((p: { cameraPathId: string }) => p.cameraPathId)).not.toContain(cameraPathId);
      }
      expect((await studio().delete(`${BASE}/${UNKNOWN_ID}`).set(owner.bearer)).status).toBe(204);
      const still = await studio().get(`${BASE}/${cameraPathId}`).set(owner.bearer);
      expect(still.status).toBe(200);
      expect(still.body.name).toBe('Mine');
    });
  });

  it('deleting the scene ends its sessions and removes its paths at once, and only its paths', async () => {
    const doomed = await readyScene(suite.api, suite.org);
    const { bearer } = await session('perform', doomed);
    const kept = await session('perform', otherSceneId);
    const { cameraPathId } = await saved(bearer, 'path', 'Doomed take', takeDocument(10));
    await saved(bearer, 'view', 'Doomed view', viewDocument());
    await saved(kept.bearer, 'view', 'Kept view', viewDocument());
    expect(await pathRows(doomed)).toBe(2);
    const keptBefore = await pathRows(otherSceneId);

    expect((await suite.api.http().delete(`/v1/scenes/${doomed}`).set(suite.org.auth)).status).toBe(204);
    expect(await pathRows(doomed)).toBe(0);
    expect(await pathRows(otherSceneId)).toBe(keptBefore);
    expectProblem(await list(bearer), 401, 'session_ended');
    expectProblem(await studio().get(`${BASE}/${cameraPathId}`).set(bearer), 401, 'session_ended');
    expectProblem(await create(bearer, { kind: 'view', name: 'Late', document: viewDocument() }), 401, 'session_ended');
    expect((await list(kept.bearer)).body.cameraPaths.some((p: { name: string }) => p.name === 'Kept view')).toBe(true);
  });

  it.each([
    ['too short', 'cam_01JD3Z8Q4W6K2M9T5X7B1C0VH'],
    ['lower case', 'cam_01jd3z8q4w6k2m9t5x7b1c0vhe'],
    ['another prefix', 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE'],
    ['a letter Crockford leaves out', 'cam_01JD3Z8Q4W6K2M9T5X7B1C0VHU'],
    ['junk', 'not-an-id'],
    ['an encoded slash', 'cam_01JD3Z8Q4W6K2M9T5X7B1C0VH%2F'],
  ])('a malformed id (%s) → 400 invalid_id on read, change and delete', async (_, id) => {
    const { bearer } = await session('perform');
    for (const res of [
      await studio().get(`${BASE}/${id}`).set(bearer),
      await studio().put(`${BASE}/${id}`).set(bearer).send({ name: 'x', document: viewDocument() }),
      await studio().delete(`${BASE}/${id}`).set(bearer),
    ]) {
      expectProblem(res, 400, 'invalid_id');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('keeps at most 200 paths per scene, also when saves race for the last places', async () => {
    const scene = await readyScene(suite.api, suite.org);
    const { bearer } = await session('perform', scene);
    await db().query(
      `INSERT INTO camera_paths (id, organization_id, scene_id, kind, name, document, duration_ms, keyframe_count, sample_count, created_at, updated_at)
       SELECT 'cam_' || lpad(i::text, 26, '0'), $1, $2, 'view', 'View ' || i, $3, 0, 1, 0, now(), now() FROM generate_series(1, 197) AS i`,
      [suite.org.organizationId, scene, JSON.stringify(viewDocument())],
    );
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create(bearer, { kind: 'view', name: `Racer ${i}`, document: viewDocument() })),
    );
    // Statuses, not responses: a failure message would print the request's bearer secret.
    expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 201, 422, 422, 422]);
    for (const refused of racing.filter((r) => r.status !== 201)) {
      expectProblem(refused, 422, 'validation_failed');
      expect(refused.body.errors).toEqual([{ field: 'cameraPaths', code: 'too_many', message: expect.stringContaining('200') }]);
    }
    expect(await pathRows(scene)).toBe(200);
    const { cameraPathId } = (await list(bearer, '?kind=view')).body.cameraPaths[0];
    expect((await studio().delete(`${BASE}/${cameraPathId}`).set(bearer)).status).toBe(204);
    expect((await create(bearer, { kind: 'view', name: 'Room again', document: viewDocument() })).status).toBe(201);
  });
});
