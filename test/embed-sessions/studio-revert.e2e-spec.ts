import { createHash } from 'node:crypto';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';

const ORIGIN = 'http://localhost:5173';
type Mode = 'edit' | 'perform' | 'edit_and_perform';
type Bearer = { Authorization: string };

/**
 * Reverting from the studio (docs/embed.md, "Reverting"): `POST /studio-api/v1/scene/versions/{n}:revert`
 * makes version n + 1 equal to version n — the same spec, the same files — as an edit turn kept
 * in the history, seen by partners as an edit; the mode, the version and the session are checked
 * on the server.
 */
describe('reverting a scene to an earlier version through the studio API', () => {
  const suite = setUpSuite({ studio: {}, worker: {}, org: { test: true } });

  async function session(sceneId: string, mode: Mode): Promise<{ id: string; bearer: Bearer }> {
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  const studio = () => suite.studio.http();
  const revert = (bearer: Bearer, version: number | string) => studio().post(`/studio-api/v1/scene/versions/${version}:revert`).set(bearer);

  async function turnOf(bearer: Bearer, operationId: string): Promise<Record<string, any>> {
    return pollUntil(
      async () =>
        ((await studio().get('/studio-api/v1/edits').set(bearer)).body.turns as Record<string, any>[]).find(
          (t) => t.operationId === operationId,
        )!,
      (turn) => turn?.status !== 'processing',
      { what: `turn ${operationId} to finish`, timeoutMs: 20_000 },
    );
  }

  /** A ready scene with an edited version 2 (the procedural generator changes the scene), through an edit-mode session. */
  async function editedScene(): Promise<{ sceneId: string; bearer: Bearer }> {
    const sceneId = await readyScene(suite.api, suite.org);
    const { bearer } = await session(sceneId, 'edit');
    const edit = await studio().post('/studio-api/v1/edits').set(bearer).send({ instruction: 'make it night, add fog and more trees' });
    expect(edit.status).toBe(202);
    expect(await turnOf(bearer, edit.body.operationId)).toMatchObject({ status: 'succeeded', version: 2 });
    return { sceneId, bearer };
  }

  async function versionContent(bearer: Bearer, version: number) {
    const [list, spec] = await Promise.all([
      studio().get(`/studio-api/v1/scene/versions/${version}/artifacts`).set(bearer),
      studio().get(`/studio-api/v1/scene/versions/${version}/spec`).set(bearer),
    ]);
    expect(list.status).toBe(200);
    expect(spec.status).toBe(200);
    const files = await Promise.all(
      (list.body.artifacts as { kind: string }[]).map(async ({ kind }) => {
        const res = await studio()
          .get(`/studio-api/v1/scene/versions/${version}/artifacts/${kind}`)
          .set(bearer)
          .buffer(true)
          .parse((r, cb) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => cb(null, Buffer.concat(chunks)));
          });
        return [
          kind,
          createHash('sha256')
            .update(res.body as Buffer)
            .digest('hex'),
        ] as const;
      }),
    );
    return { artifacts: list.body.artifacts, spec: spec.body, bytesSha256: Object.fromEntries(files) };
  }

  it('makes version n + 1 equal to the chosen one (files and spec), keeps the history, and tells partners as an edit', async () => {
    const { sceneId, bearer } = await editedScene();
    const v1 = await versionContent(bearer, 1);
    const v2 = await versionContent(bearer, 2);
    // The edit really changed the scene, so equality below means the revert restored it.
    expect(v2.spec).not.toEqual(v1.spec);
    expect(v2.bytesSha256).not.toEqual(v1.bytesSha256);

    const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, bearer);
    try {
      await stream.next('scene.status');
      const res = await revert(bearer, 1);
      expect(res.status).toBe(202);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ operationId: expect.stringMatching(/^op_/), status: 'processing', createdAt: expect.any(String) });

      const turn = await turnOf(bearer, res.body.operationId);
      expect(turn).toEqual({
        operationId: res.body.operationId,
        instruction: 'Revert to version 1',
        revertTo: 1,
        status: 'succeeded',
        version: 3,
        error: null,
        createdAt: expect.any(String),
        completedAt: expect.any(String),
      });
      const v3 = await versionContent(bearer, 3);
      expect(v3.spec).toEqual(v1.spec);
      expect(v3.artifacts).toEqual(v1.artifacts);
      // The bytes served for version 3 hash to what the list says, and to version 1's.
      expect(v3.bytesSha256).toEqual(v1.bytesSha256);
      for (const a of v3.artifacts as { kind: string; sha256: string }[]) expect(v3.bytesSha256[a.kind]).toBe(a.sha256);

      // The history: the edit, then the revert, each with its version; earlier versions stay.
      const turns = (await studio().get('/studio-api/v1/edits').set(bearer)).body.turns as Record<string, any>[];
      expect(turns.map((t) => [t.instruction, t.revertTo, t.version])).toEqual([
        ['make it night, add fog and more trees', null, 2],
        ['Revert to version 1', 1, 3],
      ]);
      expect((await versionContent(bearer, 2)).spec).toEqual(v2.spec);

      // Open studios hear of it as of any edit: the new version, and the history.
      await pollUntil(
        async () => stream.events.filter((e) => e.event === 'scene.status').map((e) => e.data.version),
        (versions) => versions.includes(3),
        { what: 'version 3 to be pushed', timeoutMs: 15_000 },
      );
      await pollUntil(
        async () => stream.events.filter((e) => e.event === 'edit.updated').flatMap((e) => e.data.turns as Record<string, any>[]),
        (turns) => turns.some((t) => t.operationId === res.body.operationId && t.status === 'succeeded' && t.revertTo === 1),
        { what: 'the revert turn to be pushed', timeoutMs: 15_000 },
      );
    } finally {
      stream.close();
    }

    // The partner API: the scene is at version 3, and the revert is an operation like an edit's.
    expect((await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth)).body).toMatchObject({ status: 'ready', version: 3 });
    const turns = (await studio().get('/studio-api/v1/edits').set(bearer)).body.turns as Record<string, any>[];
    const op = await suite.api.http().get(`/v1/operations/${turns[1].operationId}`).set(suite.org.auth);
    expect(op.body).toEqual({
      operationId: turns[1].operationId,
      kind: 'scene.edit',
      externalRef: null,
      status: 'succeeded',
      sceneId,
      version: 3,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      completedAt: expect.any(String),
    });

    // Reverting the revert's own source again, and to the latest, both make a new version.
    const again = await revert(bearer, 2);
    expect(await turnOf(bearer, again.body.operationId)).toMatchObject({ status: 'succeeded', version: 4, revertTo: 2 });
    expect((await versionContent(bearer, 4)).bytesSha256).toEqual(v2.bytesSha256);

    // Deleting the scene removes every version, the shared files included, without an error.
    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
    expect((await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(404);
  });

  it.each<[Mode, number]>([
    ['edit', 202],
    ['edit_and_perform', 202],
    ['perform', 403],
  ])('in %s mode → %d', async (mode, status) => {
    const sceneId = await readyScene(suite.api, suite.org);
    const { bearer } = await session(sceneId, mode);
    const res = await revert(bearer, 1);
    expect(res.status).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
    if (status === 403) {
      expectProblem(res, 403, 'forbidden');
      // Refused means refused: no turn, no version.
      expect((await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth)).body.version).toBe(1);
      return;
    }
    const { bearer: editor } = await session(sceneId, 'edit');
    expect(await turnOf(editor, res.body.operationId)).toMatchObject({ status: 'succeeded', version: 2, revertTo: 1 });
  });

  it('refuses versions that do not exist (404, as reading them) and malformed ones (400)', async () => {
    const { sceneId, bearer } = await editedScene();
    for (const version of [0, -1, 3, 99, 2 ** 31]) {
      const res = await revert(bearer, version);
      expectProblem(res, 404, 'not_found');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // Malformed numbers get what reading such a version gets.
    for (const version of ['one', '1.5']) expectProblem(await revert(bearer, version), 400, 'bad_request');
    expectProblem(await revert(bearer, 1).set('Content-Type', 'text/plain').send('x'), 415, 'unsupported_media_type');
    // Nothing was started by the refusals.
    expect((await studio().get('/studio-api/v1/edits').set(bearer)).body.turns).toHaveLength(1);
    expect((await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth)).body.version).toBe(2);
  });

  it('refuses a revoked session (401 session_ended) and an unknown secret (401), starting nothing', async () => {
    const sceneId = await readyScene(suite.api, suite.org);
    const s = await session(sceneId, 'edit');
    expect((await suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(suite.org.auth)).status).toBe(204);
    const res = await revert(s.bearer, 1);
    expectProblem(res, 401, 'session_ended');
    expect(res.body.reason).toBe('revoked');
    expectProblem(await revert({ Authorization: `Bearer ${'B'.repeat(43)}` }, 1), 401, 'unauthenticated');
    expectProblem(await revert({ Authorization: '' }, 1), 401, 'unauthenticated');
    expect((await suite.api.http().get(`/v1/scenes/${sceneId}`).set(suite.org.auth)).body.version).toBe(1);
  });
});
