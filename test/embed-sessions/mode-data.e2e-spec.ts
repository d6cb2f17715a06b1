import type { Response } from 'supertest';
import { moveDocument } from '../factories/camera-path.factory';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { awaitOperation, uploadImage } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';
import { binaryBody } from '../support/binary-body';
import { readGlb } from '@app/generation';
import { DataSource } from 'typeorm';
import { PROVIDER_FILE_MARKER } from '../support/fakes/fake-server';
import { MeshyFake } from '../support/fakes/meshy-fake';
import { FakeWorldLabs } from '../support/fakes/worldlabs-fake';

/**
 * docs/embed.md, "What each mode receives": a perform session never receives the scene's
 * prompt, an edit instruction or the edit history, through any studio route or event; the edit
 * modes receive them where they need them. Markers in the prompt and the instructions are looked
 * for in every byte each session receives (headers and bodies, files included). The files carry
 * nothing derived from them either, whoever made them: the procedural generator's GLB has no seed,
 * no names from the prompt's words and no texture of the source image; a provider's files (World
 * Labs, Meshy: their fakes write the prompt into their files' metadata) are stored without it.
 */
const ORIGIN = 'http://localhost:5173';
const MODES = ['edit', 'perform', 'edit_and_perform'] as const;
type Mode = (typeof MODES)[number];

const PROMPT_MARKER = 'qzx-prompt-7c41';
const EDIT_MARKER = 'qzx-edit-7c41';
const MARKERS = [PROMPT_MARKER, EDIT_MARKER];

interface Session {
  id: string;
  bearer: { Authorization: string };
}

/** What a session received, as bytes: the status line's code, every header and the body. */
function received(res: Response): { status: number; text: string } {
  const body = Buffer.isBuffer(res.body) ? res.body : Buffer.from(res.text ?? '', 'utf8');
  return { status: res.status, text: `${JSON.stringify(res.headers)}\n${body.toString('latin1')}`.toLowerCase() };
}

const markersIn = (text: string) => MARKERS.filter((m) => text.includes(m));

describe('what each mode receives', () => {
  const suite = setUpSuite({ studio: {}, worker: {}, org: { test: true } });
  let sceneId: string;
  /** The current version, which the edits and reverts below move on. */
  let version: number;

  async function session(mode: Mode): Promise<Session> {
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  async function edited(operationId: string): Promise<void> {
    const done = await awaitOperation(suite.api, suite.org, operationId);
    expect(done.body.status).toBe('succeeded');
    version = done.body.version;
  }

  async function savedMove(): Promise<string> {
    const s = await session('perform');
    const res = await suite.studio
      .http()
      .post('/studio-api/v1/camera-paths')
      .set(s.bearer)
      .send({ kind: 'path', name: 'Dolly in', document: moveDocument() });
    expect(res.status).toBe(201);
    return res.body.cameraPathId as string;
  }

  beforeAll(async () => {
    sceneId = await readyScene(suite.api, suite.org, {
      prompt: `A calm lake among pines at sunset ${PROMPT_MARKER}`,
      sourceAssetId: await uploadImage(suite.api, suite.org, 1280, 720),
    });
    // Version 2 comes from an instruction: its spec and the history carry the edit marker.
    const editor = await session('edit');
    const edit = await suite.studio
      .http()
      .post('/studio-api/v1/edits')
      .set(editor.bearer)
      .send({ instruction: `add fog ${EDIT_MARKER}` });
    expect(edit.status).toBe(202);
    await edited(edit.body.operationId);
    expect(version).toBe(2);
  });

  describe('every studio route × every mode', () => {
    interface Route {
      name: string;
      method: 'get' | 'post' | 'put' | 'delete';
      /** The path, and the body to send; may prepare what it names first. */
      call: () => Promise<{ path: string; body?: Record<string, unknown> }>;
      status: Record<Mode, number>;
      /** The markers the answer carries in the edit modes; perform gets none, ever. */
      carries: string[];
      /** An edit turn started: the next call waits for its end (one turn of a scene at a time). */
      startsEdit?: boolean;
    }
    const ALL = (status: number): Record<Mode, number> => ({ edit: status, perform: status, edit_and_perform: status });
    const EDITING = (status: number): Record<Mode, number> => ({ edit: status, perform: 403, edit_and_perform: status });
    const PERFORMING = (status: number): Record<Mode, number> => ({ edit: 403, perform: status, edit_and_perform: status });
    const at = (path: string) => () => Promise.resolve({ path });

    const routes: Route[] = [
      { name: 'the session', method: 'get', call: at('/studio-api/v1/session'), status: ALL(200), carries: [] },
      {
        name: "version 1's spec",
        method: 'get',
        call: at('/studio-api/v1/scene/versions/1/spec'),
        status: ALL(200),
        carries: [PROMPT_MARKER],
      },
      { name: "version 2's spec", method: 'get', call: at('/studio-api/v1/scene/versions/2/spec'), status: ALL(200), carries: MARKERS },
      { name: "version 2's files", method: 'get', call: at('/studio-api/v1/scene/versions/2/artifacts'), status: ALL(200), carries: [] },
      {
        name: "version 2's mesh",
        method: 'get',
        call: at('/studio-api/v1/scene/versions/2/artifacts/mesh'),
        status: ALL(200),
        carries: [],
      },
      {
        name: "version 2's scene.glb",
        method: 'get',
        call: at('/studio-api/v1/scene/versions/2/scene.glb'),
        status: ALL(200),
        carries: [],
      },
      { name: 'a version not made yet', method: 'get', call: at('/studio-api/v1/scene/versions/99/spec'), status: ALL(404), carries: [] },
      { name: 'the source image', method: 'get', call: at('/studio-api/v1/source-image'), status: EDITING(200), carries: [] },
      { name: 'the edit history', method: 'get', call: at('/studio-api/v1/edits'), status: EDITING(200), carries: [EDIT_MARKER] },
      {
        name: 'starting an edit',
        method: 'post',
        call: () => Promise.resolve({ path: '/studio-api/v1/edits', body: { instruction: `add rocks ${EDIT_MARKER}` } }),
        status: EDITING(202),
        carries: [],
        startsEdit: true,
      },
      {
        name: 'a revert',
        method: 'post',
        call: at('/studio-api/v1/scene/versions/1:revert'),
        status: EDITING(202),
        carries: [],
        startsEdit: true,
      },
      {
        name: 'the saved camera paths',
        method: 'get',
        call: at('/studio-api/v1/camera-paths?kind=path'),
        status: PERFORMING(200),
        carries: [],
      },
      {
        name: 'saving a camera path',
        method: 'post',
        call: () =>
          Promise.resolve({ path: '/studio-api/v1/camera-paths', body: { kind: 'path', name: 'Crane', document: moveDocument() } }),
        status: PERFORMING(201),
        carries: [],
      },
      {
        name: 'a saved camera path',
        method: 'get',
        call: async () => ({ path: `/studio-api/v1/camera-paths/${await savedMove()}` }),
        status: PERFORMING(200),
        carries: [],
      },
      {
        name: 'replacing a camera path',
        method: 'put',
        call: async () => ({
          path: `/studio-api/v1/camera-paths/${await savedMove()}`,
          body: { name: 'Renamed', document: moveDocument(2) },
        }),
        status: PERFORMING(200),
        carries: [],
      },
      {
        name: 'deleting a camera path',
        method: 'delete',
        call: async () => ({ path: `/studio-api/v1/camera-paths/${await savedMove()}` }),
        status: PERFORMING(204),
        carries: [],
      },
    ];

    it.each(routes.flatMap((route) => MODES.map((mode) => [route.name, mode, route] as const)))('%s in %s mode', async (_, mode, route) => {
      const s = await session(mode);
      const { path, body } = await route.call();
      let req = suite.studio.http()[route.method](path).set(s.bearer).buffer(true).parse(binaryBody);
      if (body) req = req.send(body);
      const res = await req;
      const got = received(res);
      expect(got.status).toBe(route.status[mode]);
      const json = () => JSON.parse((res.body as Buffer).toString('utf8'));
      if (got.status === 403) expectProblem({ ...res, body: json() } as Response, 403, 'forbidden');
      expect(markersIn(got.text)).toEqual(mode === 'perform' ? [] : route.carries);
      if (route.startsEdit && got.status === 202) await edited(json().operationId);
    });

    it.each(MODES)('the procedural mesh in %s mode draws the scene and says nothing else', async (mode) => {
      const s = await session(mode);
      const res = await suite.studio
        .http()
        .get(`/studio-api/v1/scene/versions/${version}/artifacts/mesh`)
        .set(s.bearer)
        .buffer(true)
        .parse(binaryBody);
      expect(res.status).toBe(200);
      const glb = res.body as Buffer;
      const root = (await readGlb(glb)).getRoot();
      // The source image (1280×720, uploaded) is in no file: perform may not see it.
      expect(root.listTextures()).toHaveLength(0);
      // No seed (a digest of the prompt) or anything else in extras.
      const json = JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8'));
      expect(JSON.stringify(json)).not.toContain('extras');
      // Props are numbered, never named after the prompt's words (`tree-3`, `boat-0`).
      const names = root.listNodes().map((n) => n.getName());
      expect(names.filter((n) => n.startsWith('prop-')).length).toBeGreaterThan(0);
      for (const name of names) expect(name).toMatch(/^(terrain|water|props|prop-\d+|[a-z-]+)$/);
      for (const name of [...names, ...root.listMeshes().map((m) => m.getName()), ...root.listMaterials().map((m) => m.getName())]) {
        expect(name).not.toMatch(/\b(pine|tree|lake|boat|house|rock|snowman|lamp|bush)\b/);
      }
    });

    it.each(MODES)('the studio page in %s mode', async (mode) => {
      const s = await session(mode);
      const res = await suite.studio.http().get(`/embed/${s.id}`).buffer(true).parse(binaryBody);
      expect(res.status).toBe(200);
      expect(markersIn(received(res).text)).toEqual([]);
    });
  });

  /**
   * One stream per mode, opened once the scene has a history (sent at once to the edit modes),
   * open while an edit happens in another session, then extended and revoked: every event type
   * reaches every mode that receives it, and the stream's bytes are complete once it closed
   * after `session.ended`.
   */
  describe('every event type × every mode', () => {
    const streams = new Map<Mode, SseClient>();

    beforeAll(async () => {
      const sessions = new Map<Mode, Session>();
      for (const mode of MODES) {
        const s = await session(mode);
        sessions.set(mode, s);
        const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, s.bearer);
        expect(stream.status).toBe(200);
        await stream.next('scene.status');
        streams.set(mode, stream);
      }

      // An edit in another session, while the streams are open.
      const editor = await session('edit_and_perform');
      const edit = await suite.studio
        .http()
        .post('/studio-api/v1/edits')
        .set(editor.bearer)
        .send({ instruction: `make it night ${EDIT_MARKER}` });
      expect(edit.status).toBe(202);
      await edited(edit.body.operationId);
      for (const stream of streams.values()) {
        await pollUntil(
          () => Promise.resolve(stream.events.filter((e) => e.event === 'scene.status').map((e) => e.data.version)),
          (versions) => versions.includes(version),
          { what: `version ${version} to be pushed`, timeoutMs: 15_000 },
        );
      }
      // The edit modes hear of the finished turn; perform streams must not hear of it at all.
      for (const stream of [streams.get('edit')!, streams.get('edit_and_perform')!]) {
        await pollUntil(
          () => Promise.resolve(stream.events.filter((e) => e.event === 'edit.updated').flatMap((e) => e.data.turns)),
          (turns) =>
            turns.some((t: { operationId: string; status: string }) => t.operationId === edit.body.operationId && t.status === 'succeeded'),
          { what: 'the finished turn to be pushed', timeoutMs: 15_000 },
        );
      }
      // Extended, then revoked: each stream has seen a whole tick after the edit, then closes.
      for (const mode of MODES) {
        const [s, stream] = [sessions.get(mode)!, streams.get(mode)!];
        const ext = await suite.api.http().post(`/v1/embed-sessions/${s.id}:extend`).set(suite.org.auth).send({ expiresInSeconds: 7200 });
        expect(ext.status).toBe(200);
        await stream.next('session.updated', 5000);
        expect((await suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(suite.org.auth)).status).toBe(204);
        await stream.next('session.ended', 5000);
        await stream.done;
        expect(stream.closed).toBe(true);
      }
    });

    afterAll(() => {
      for (const stream of streams.values()) stream.close();
    });

    const EVENT_TYPES = ['scene.status', 'edit.updated', 'session.updated', 'session.ended'] as const;

    it.each(EVENT_TYPES.flatMap((type) => MODES.map((mode) => [type, mode] as const)))('%s in %s mode', (type, mode) => {
      const stream = streams.get(mode)!;
      const events = stream.events.filter((e) => e.event === type);
      if (type === 'edit.updated' && mode === 'perform') {
        expect(events).toEqual([]);
      } else {
        expect(events.length).toBeGreaterThan(0);
      }
      const text = JSON.stringify(events).toLowerCase();
      // The history names the instructions; nothing else carries a marker.
      expect(markersIn(text)).toEqual(type === 'edit.updated' && mode !== 'perform' ? [EDIT_MARKER] : []);
    });

    it.each(MODES)('no byte of the %s stream carries the prompt, and only the edit modes get instructions', (mode) => {
      expect(markersIn(streams.get(mode)!.raw.toLowerCase())).toEqual(mode === 'perform' ? [] : [EDIT_MARKER]);
    });
  });
});

/**
 * A provider's files, every one of them in every mode: the fakes write the prompt (and their own
 * marker) into each file's metadata as a provider may — a PNG text chunk, a JPEG comment, glTF
 * extras, names and generator, a texture's text chunk — and no session receives any of it.
 */
describe.each(['worldlabs', 'meshy'] as const)("what each mode receives of %s's files", (provider) => {
  let worldLabs: FakeWorldLabs;
  let meshy: MeshyFake;
  beforeAll(async () => {
    worldLabs = await FakeWorldLabs.start({ jobDurationMs: 300 });
    meshy = await MeshyFake.start();
    meshy.pendingMs = 0;
    meshy.taskDurationMs = 300;
  });
  afterAll(async () => {
    await worldLabs?.close();
    await meshy?.close();
  });
  const suite = setUpSuite(() => ({
    studio: {},
    worker: {
      config: provider === 'worldlabs' ? worldLabs.workerConfig() : meshy.workerConfig(),
    },
    org: { test: true },
  }));
  const FILE_MARKERS = [PROMPT_MARKER, PROVIDER_FILE_MARKER.toLowerCase()];
  let sceneId: string;

  beforeAll(async () => {
    // Marble gets the source image too (a media asset); Meshy writes the prompt of a text scene.
    sceneId = await readyScene(suite.api, suite.org, {
      prompt: `A lighthouse on a cliff ${PROMPT_MARKER}`,
      ...(provider === 'worldlabs' ? { sourceAssetId: await uploadImage(suite.api, suite.org, 1280, 720) } : {}),
    });
  });

  async function session(mode: Mode): Promise<Session> {
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode });
    expect(res.status).toBe(201);
    return { id: res.body.embedSessionId, bearer: { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` } };
  }

  it('the provider did write the prompt into its files (so the matrix below can fail)', async () => {
    const [{ provider_job: job }] = await suite.api.app
      .get(DataSource)
      .query<{ provider_job: { id: string; state: Record<string, string> } }[]>(`SELECT provider_job FROM operations WHERE scene_id = $1`, [
        sceneId,
      ]);
    const urls =
      provider === 'worldlabs'
        ? ['collider.glb', 'pano.png', 'thumbnail.jpg'].map((f) => `${worldLabs.url}/files/${job.state.worldId}/${f}`)
        : ['model.glb', 'preview.png'].map((f) => `${meshy.url}/assets/${job.id}/${f}`);
    for (const url of urls) {
      const bytes = Buffer.from(await (await fetch(url)).arrayBuffer())
        .toString('latin1')
        .toLowerCase();
      expect(FILE_MARKERS.filter((m) => bytes.includes(m))).toEqual(FILE_MARKERS);
    }
  });

  it.each(MODES)('every file in %s mode, and the scene.glb, carries neither the prompt nor what the provider wrote', async (mode) => {
    const s = await session(mode);
    const list = await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts').set(s.bearer);
    expect(list.status).toBe(200);
    const kinds = (list.body.artifacts as { kind: string }[]).map((a) => a.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(provider === 'worldlabs' ? ['splat', 'collider', 'panorama', 'thumbnail'] : ['mesh', 'thumbnail']),
    );
    const paths = [...kinds.map((k) => `/studio-api/v1/scene/versions/1/artifacts/${k}`), '/studio-api/v1/scene/versions/1/scene.glb'];
    for (const path of paths) {
      const res = await suite.studio.http().get(path).set(s.bearer).buffer(true).parse(binaryBody);
      // A world has no mesh to serve as scene.glb.
      expect(res.status).toBe(path.endsWith('scene.glb') && provider === 'worldlabs' ? 404 : 200);
      const text = received(res).text;
      expect({ path, found: FILE_MARKERS.filter((m) => text.includes(m)) }).toEqual({ path, found: [] });
    }
  });
});
