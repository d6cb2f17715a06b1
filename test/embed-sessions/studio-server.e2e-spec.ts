import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ManualClock } from '@app/core';
import { EmbedSessionsService } from '@app/embed-sessions';
import { StudioEventsHub } from '@apps/studio/events/studio-events.hub';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { awaitOperation, uploadImage } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { expectProblem } from '../support/problems';
import { SseClient } from '../support/sse';
import { setUpSuite } from '../support/suite';

const ORIGIN = 'http://localhost:5173';

describe('the studio origin: page, studio API and server push', () => {
  const clock = new ManualClock();
  const suite = setUpSuite({ api: { clock }, studio: { clock }, worker: {}, org: { test: true } });
  let other: TestOrganization;
  let sceneId: string;
  let sourceSceneId: string;

  beforeAll(async () => {
    other = await createOrganization(suite.api.app, { test: true });
    sceneId = await readyScene(suite.api, suite.org);
    sourceSceneId = await readyScene(suite.api, suite.org, {
      prompt: 'From my photo',
      sourceAssetId: await uploadImage(suite.api, suite.org),
    });
  });

  beforeEach(() => clock.set(Date.now()));

  async function session(mode: 'edit' | 'perform' | 'edit_and_perform' = 'perform', extra: Record<string, unknown> = {}) {
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode, ...extra });
    expect(res.status).toBe(201);
    const url = parseEmbedUrl(res.body.url);
    return { id: res.body.embedSessionId as string, secret: url.secret, bearer: { Authorization: `Bearer ${url.secret}` } };
  }

  describe('GET /embed/{id}', () => {
    it('serves the studio page framable only by the exact origin, uncached, without referrer', async () => {
      const s = await session();
      const res = await suite.studio.http().get(`/embed/${s.id}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = res.headers['content-security-policy'];
      expect(csp).toMatch(new RegExp(`^frame-ancestors ${ORIGIN}; `));
      const directives = new Map(
        (csp as string).split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name, values] as const;
        }),
      );
      for (const rule of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'"]) {
        expect(csp).toContain(rule);
      }
      // The splat renderer compiles WebAssembly and sorts in a blob: worker: exactly that, no eval, no inline code.
      expect(directives.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
      expect(directives.get('worker-src')).toEqual(["'self'", 'blob:']);
      expect(directives.get('connect-src')).toEqual(["'self'"]);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain("'unsafe-eval'");
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['permissions-policy']).toContain('gamepad=(self)');
      expect(res.headers['x-frame-options']).toBeUndefined();
      expect(res.text).toContain('<script');
    });

    it('gives unknown, malformed, expired and revoked sessions one identical ended page', async () => {
      const revoked = await session();
      await suite.api.http().delete(`/v1/embed-sessions/${revoked.id}`).set(suite.org.auth);
      const expired = await session('perform', { expiresInSeconds: 300 });
      const deletedScene = await readyScene(suite.api, suite.org);
      const orphan = (await createEmbedSession(suite.api, suite.org, { sceneId: deletedScene, origin: ORIGIN, mode: 'edit' })).body
        .embedSessionId;
      await suite.api.http().delete(`/v1/scenes/${deletedScene}`).set(suite.org.auth);
      clock.advance(300_000);
      const pages = await Promise.all(
        ['es_01JD3Z8Q4W6K2M9T5X7B1C0VHE', 'not-an-id', revoked.id, expired.id, orphan].map((id) => suite.studio.http().get(`/embed/${id}`)),
      );
      const shape = (r: (typeof pages)[number]) => ({
        status: r.status,
        text: r.text,
        csp: r.headers['content-security-policy'],
        cache: r.headers['cache-control'],
        referrer: r.headers['referrer-policy'],
        headers: Object.keys(r.headers)
          .filter((h) => !['date', 'x-request-id'].includes(h))
          .sort(),
      });
      for (const p of pages) expect(shape(p)).toEqual(shape(pages[0]));
      expect(pages[0].status).toBe(404);
      expect(pages[0].text).toContain('This session has ended');
      expect(pages[0].headers['content-security-policy']).toMatch(/^frame-ancestors 'none'/);
      expect(pages[0].headers['cache-control']).toBe('no-store');
    });

    it('serves the page bundle from /assets with long-lived caching', async () => {
      const s = await session();
      const html = (await suite.studio.http().get(`/embed/${s.id}`)).text;
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
      const res = await suite.studio.http().get(script).set('Accept-Encoding', 'identity');
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers['cache-control']).toContain('immutable');
      // Compressed at build time and served so to browsers that accept it.
      const br = await suite.studio
        .http()
        .get(script)
        .set('Accept-Encoding', 'br, gzip')
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['vary']).toBe('Accept-Encoding');
      expect(br.headers['cache-control']).toContain('immutable');
      expect(Number(br.headers['content-length'])).toBeLessThan(Number(res.headers['content-length']) / 3);
      const gzip = await suite.studio.http().get(script).set('Accept-Encoding', 'gzip');
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gzip.headers['content-type']).toMatch(/javascript/);
      expect(gzip.text).toBe(res.text);
    });

    it('answers a missing asset with 404 problem+json, uncached', async () => {
      const res = await suite.studio.http().get('/assets/index-missing.js').set('Accept-Encoding', 'br, gzip');
      expectProblem(res, 404, 'not_found');
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });

  describe('studio API authentication', () => {
    it.each<[string, Record<string, string>]>([
      ['no token', {}],
      ['a malformed token', { Authorization: 'Bearer short' }],
      ['an unknown token', { Authorization: `Bearer ${'A'.repeat(43)}` }],
      ['a partner API key', { Authorization: 'Bearer sk_test_' + 'A'.repeat(43) }],
    ])('%s → 401 unauthenticated', async (_, headers) => {
      expectProblem(await suite.studio.http().get('/studio-api/v1/session').set(headers), 401, 'unauthenticated');
    });

    it('a revoked session → 401 session_ended, reason revoked', async () => {
      const s = await session();
      await suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(suite.org.auth);
      const res = await suite.studio.http().get('/studio-api/v1/session').set(s.bearer);
      expectProblem(res, 401, 'session_ended');
      expect(res.body.reason).toBe('revoked');
    });

    it('an expired session → 401 session_ended, reason expired, decided by time at the request', async () => {
      const s = await session('perform', { expiresInSeconds: 300 });
      clock.advance(299_000);
      expect((await suite.studio.http().get('/studio-api/v1/session').set(s.bearer)).status).toBe(200);
      clock.advance(1000);
      const res = await suite.studio.http().get('/studio-api/v1/session').set(s.bearer);
      expectProblem(res, 401, 'session_ended');
      expect(res.body.reason).toBe('expired');
    });

    it('a session whose scene was deleted → 401 session_ended', async () => {
      const doomed = await readyScene(suite.api, suite.org);
      const res = await createEmbedSession(suite.api, suite.org, { sceneId: doomed, origin: ORIGIN, mode: 'edit' });
      const bearer = { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
      expect((await suite.studio.http().get('/studio-api/v1/session').set(bearer)).status).toBe(200);
      await suite.api.http().delete(`/v1/scenes/${doomed}`).set(suite.org.auth);
      expectProblem(await suite.studio.http().get('/studio-api/v1/session').set(bearer), 401, 'session_ended');
      expectProblem(await suite.studio.http().get('/studio-api/v1/scene/versions/1/scene.glb').set(bearer), 401, 'session_ended');
    });
  });

  describe('what each mode may do, enforced by the server', () => {
    const routes: Array<[string, 'get' | 'post', string, Record<string, unknown> | undefined, Record<string, number>]> = [
      ['session', 'get', '/studio-api/v1/session', undefined, { edit: 200, perform: 200, edit_and_perform: 200 }],
      ['scene file', 'get', '/studio-api/v1/scene/versions/1/scene.glb', undefined, { edit: 200, perform: 200, edit_and_perform: 200 }],
      ['scene spec', 'get', '/studio-api/v1/scene/versions/1/spec', undefined, { edit: 200, perform: 200, edit_and_perform: 200 }],
      ['file list', 'get', '/studio-api/v1/scene/versions/1/artifacts', undefined, { edit: 200, perform: 200, edit_and_perform: 200 }],
      ['one file', 'get', '/studio-api/v1/scene/versions/1/artifacts/mesh', undefined, { edit: 200, perform: 200, edit_and_perform: 200 }],
      ['source image', 'get', '/studio-api/v1/source-image', undefined, { edit: 200, perform: 403, edit_and_perform: 200 }],
      ['edit history', 'get', '/studio-api/v1/edits', undefined, { edit: 200, perform: 403, edit_and_perform: 200 }],
      [
        'start an edit',
        'post',
        '/studio-api/v1/edits',
        { instruction: 'make it night' },
        { edit: 202, perform: 403, edit_and_perform: 202 },
      ],
    ];
    const modes = ['edit', 'perform', 'edit_and_perform'] as const;

    it.each(
      routes.flatMap(([name, method, path, body, expected]) =>
        modes.map((mode) => [name, mode, method, path, body, expected[mode]] as const),
      ),
    )('%s in %s mode → %d', async (_, mode, method, path, body, status) => {
      const res = await createEmbedSession(suite.api, suite.org, { sceneId: sourceSceneId, origin: ORIGIN, mode });
      const bearer = { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
      const call = method === 'get' ? suite.studio.http().get(path).set(bearer) : suite.studio.http().post(path).set(bearer).send(body!);
      const answer = await call;
      expect(answer.status).toBe(status);
      if (status === 403) expectProblem(answer, 403, 'forbidden');
      expect(answer.headers['cache-control']).toBe('no-store');
      // One edit of a scene at a time: the next mode's edit waits for this one.
      if (status === 202) await awaitOperation(suite.api, suite.org, answer.body.operationId);
    });

    it('reports the mode and capabilities as the server sees them', async () => {
      for (const [mode, capabilities] of [
        ['edit', { edit: true, perform: false }],
        ['perform', { edit: false, perform: true }],
        ['edit_and_perform', { edit: true, perform: true }],
      ] as const) {
        const s = await session(mode, { theme: { partnerName: 'Acme', accentColor: '#123abc', colorScheme: 'light', helpText: 'Hi' } });
        const res = await suite.studio.http().get('/studio-api/v1/session').set(s.bearer);
        expect(res.body).toEqual({
          embedSessionId: s.id,
          mode,
          origin: ORIGIN,
          expiresAt: expect.any(String),
          theme: { partnerName: 'Acme', accentColor: '#123abc', colorScheme: 'light', helpText: 'Hi' },
          capabilities,
          scene: { status: 'ready', version: 1, hasSourceImage: false, progress: null, stage: null, error: null },
        });
      }
    });

    it('serves real scene files: a glTF binary and its spec with camera presets', async () => {
      const s = await session();
      const glb = await suite.studio
        .http()
        .get('/studio-api/v1/scene/versions/1/scene.glb')
        .set(s.bearer)
        .buffer(true)
        .parse((res, cb) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => cb(null, Buffer.concat(chunks)));
        });
      expect(glb.headers['content-type']).toBe('model/gltf-binary');
      expect((glb.body as Buffer).subarray(0, 4).toString('latin1')).toBe('glTF');
      const spec = await suite.studio.http().get('/studio-api/v1/scene/versions/1/spec').set(s.bearer);
      expect(spec.body.cameras.length).toBeGreaterThanOrEqual(3);
      expect(spec.body.cameras[0]).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        position: expect.any(Array),
        target: expect.any(Array),
        focalLengthMm: expect.any(Number),
      });
      expectProblem(await suite.studio.http().get('/studio-api/v1/scene/versions/2/scene.glb').set(s.bearer), 404, 'not_found');
      expectProblem(await suite.studio.http().get('/studio-api/v1/scene/versions/0/spec').set(s.bearer), 404, 'not_found');

      // The same GLB through the artifacts list, with its size and digest.
      const list = await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts').set(s.bearer);
      expect(list.headers['cache-control']).toBe('no-store');
      const digest = createHash('sha256')
        .update(glb.body as Buffer)
        .digest('hex');
      expect(list.body).toEqual({
        version: 1,
        artifacts: [{ kind: 'mesh', contentType: 'model/gltf-binary', bytes: (glb.body as Buffer).length, sha256: digest }],
      });
      const mesh = await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts/mesh').set(s.bearer);
      expect(mesh.headers['etag']).toBe(`"${digest}"`);
      expectProblem(await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts/splat').set(s.bearer), 404, 'not_found');
      expectProblem(await suite.studio.http().get('/studio-api/v1/scene/versions/2/artifacts').set(s.bearer), 404, 'not_found');
      expectProblem(await suite.studio.http().get('/studio-api/v1/scene/versions/2/artifacts/mesh').set(s.bearer), 404, 'not_found');
    });

    it("a session never reaches another organization's scene or files", async () => {
      const foreignScene = await readyScene(suite.api, other);
      const s = await session();
      const res = await suite.studio.http().get('/studio-api/v1/session').set(s.bearer);
      expect(res.body.embedSessionId).toBe(s.id);
      expect(JSON.stringify(res.body)).not.toContain(foreignScene);
    });
  });

  describe('server push', () => {
    it('streams scene status, then session.ended within 2 s of a revocation', async () => {
      const s = await session('edit');
      const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, s.bearer);
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers!.get('content-type')).toBe('text/event-stream; charset=utf-8');
        expect(stream.headers!.get('cache-control')).toBe('no-store');
        expect((await stream.next('scene.status')).data).toEqual({ status: 'ready', version: 1, progress: null, stage: null, error: null });
        const revokedAt = Date.now();
        await suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(suite.org.auth);
        const ended = await stream.next('session.ended', 3000);
        expect(ended.data).toEqual({ reason: 'revoked' });
        expect(ended.receivedAt - revokedAt).toBeLessThan(2000);
        await stream.done;
        expect(stream.closed).toBe(true);
      } finally {
        stream.close();
      }
    });

    it('a stream opened while the hub reads the open sessions is not taken for a revoked one', async () => {
      // The hub reads a session when its stream opens, on news and in its sweep; each read tells
      // only the streams open when it was asked. A page that opens its stream while a read is in
      // flight was not asked about: it waits for its own read, and is not ended as if its session
      // had gone (CI saw pages ended at once this way when the hub polled).
      const hub = suite.studio.app.get(StudioEventsHub);
      const sessions = suite.studio.app.get(EmbedSessionsService);
      const first = await session('perform');
      let hold = (): void => undefined;
      const asked: string[][] = [];
      const held = new Promise<void>((inRead) => {
        const watch = sessions.watch.bind(sessions);
        jest.spyOn(sessions, 'watch').mockImplementation(async (ids) => {
          asked.push(ids);
          if (asked.length === 1) {
            inRead();
            await new Promise<void>((release) => (hold = release));
          }
          return watch(ids);
        });
      });
      // The first stream's own read is held open.
      const firstStream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, first.bearer);
      const late = await session('perform');
      let lateStream: SseClient | null = null;
      try {
        await firstStream.next('scene.status');
        await held;
        expect(asked[0]).toEqual([first.id]);
        lateStream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, late.bearer);
        await lateStream.next('scene.status');
        hold();
        // The late stream gets a read of its own once the held one is done.
        await pollUntil(
          async () => ({ asked: asked.flat(), held: hub.held }),
          (r) => r.asked.includes(late.id) && !r.held.reading && r.held.pending === 0,
          { what: "the late stream's own read", timeoutMs: 10_000 },
        );
        expect(lateStream.events.map((e) => e.event)).not.toContain('session.ended');
        expect(lateStream.closed).toBe(false);
        // And it is watched: its revocation still reaches it.
        await suite.api.http().delete(`/v1/embed-sessions/${late.id}`).set(suite.org.auth);
        expect((await lateStream.next('session.ended', 3000)).data).toEqual({ reason: 'revoked' });
        expect(firstStream.events.map((e) => e.event)).not.toContain('session.ended');
      } finally {
        hold();
        jest.restoreAllMocks();
        firstStream.close();
        lateStream?.close();
      }
    });

    it.each([11, 29, 47])(
      'streams opening in bursts while the hub reads slowly all stay open, and all end on revocation (seed %i)',
      async (seed) => {
        const hub = suite.studio.app.get(StudioEventsHub);
        const sessionsService = suite.studio.app.get(EmbedSessionsService);
        // Drawn from the seed: burst sizes (1 to 6), the pauses after them (0 to 400 ms), and how
        // long each read lingers (0 to 300 ms, a slow database), so bursts land inside reads.
        const bursts = fc.sample(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 400 })), { seed, numRuns: 24 });
        const lags = fc.sample(fc.integer({ min: 0, max: 300 }), { seed, numRuns: 16 });
        const watch = sessionsService.watch.bind(sessionsService);
        let reads = 0;
        jest.spyOn(sessionsService, 'watch').mockImplementation(async (ids) => {
          const lag = lags[reads++ % lags.length];
          await new Promise((resolve) => setTimeout(resolve, lag));
          return watch(ids);
        });
        const sessions = await Promise.all(Array.from({ length: 24 }, () => session('perform')));
        const open = (s: (typeof sessions)[number]) => SseClient.open(`${suite.studio.url}/studio-api/v1/events`, s.bearer);
        const streams: SseClient[] = [];
        try {
          for (let i = 0, b = 0; i < sessions.length; b++) {
            const [size, pauseMs] = bursts[b];
            streams.push(...(await Promise.all(sessions.slice(i, (i += size)).map(open))));
            await new Promise((resolve) => setTimeout(resolve, pauseMs));
          }
          for (const stream of streams) await stream.next('scene.status');
          expect(hub.openStreams).toBe(sessions.length);
          // Every stream's own read is done: each has been read since it opened.
          await pollUntil(
            async () => hub.held,
            (held) => !held.reading && held.pending === 0,
            { what: 'the reads of the opened streams', timeoutMs: 10_000 },
          );
          expect(reads).toBeGreaterThan(0);
          expect(streams.filter((st) => st.closed || st.events.some((e) => e.event === 'session.ended'))).toEqual([]);
          await Promise.all(sessions.map((s) => suite.api.http().delete(`/v1/embed-sessions/${s.id}`).set(suite.org.auth)));
          for (const stream of streams) expect((await stream.next('session.ended', 3000)).data).toEqual({ reason: 'revoked' });
          await Promise.all(streams.map((st) => st.done));
          // Every stream the hub held is gone: nothing is kept for a closed one.
          await pollUntil(
            async () => ({ open: hub.openStreams, held: hub.held }),
            (h) => h.open === 0 && h.held.sessions === 0 && h.held.expiries === 0,
            { what: 'the hub to hold no stream', timeoutMs: 5000 },
          );
        } finally {
          jest.restoreAllMocks();
          for (const stream of streams) stream.close();
        }
      },
    );

    it('ends the stream when the scene is deleted, and when the session expires', async () => {
      const doomed = await readyScene(suite.api, suite.org);
      const res = await createEmbedSession(suite.api, suite.org, { sceneId: doomed, origin: ORIGIN, mode: 'perform' });
      const deletedStream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, {
        Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}`,
      });
      const expiring = await session('perform', { expiresInSeconds: 300 });
      const expiringStream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, expiring.bearer);
      try {
        await suite.api.http().delete(`/v1/scenes/${doomed}`).set(suite.org.auth);
        expect((await deletedStream.next('session.ended', 3000)).data).toEqual({ reason: 'revoked' });
        clock.advance(300_000);
        expect((await expiringStream.next('session.ended', 3000)).data).toEqual({ reason: 'expired' });
      } finally {
        deletedStream.close();
        expiringStream.close();
      }
    });

    it('tells the page about edits and new versions', async () => {
      const fresh = await readyScene(suite.api, suite.org);
      const res = await createEmbedSession(suite.api, suite.org, { sceneId: fresh, origin: ORIGIN, mode: 'edit' });
      const bearer = { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
      const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, bearer);
      try {
        await stream.next('scene.status');
        const edit = await suite.studio.http().post('/studio-api/v1/edits').set(bearer).send({ instruction: 'add fog' });
        expect(edit.status).toBe(202);
        expect(edit.body).toEqual({ operationId: expect.stringMatching(/^op_/), status: 'processing', createdAt: expect.any(String) });
        await pollUntil(
          async () => stream.events.filter((e) => e.event === 'scene.status').map((e) => e.data.version),
          (versions) => versions.includes(2),
          { what: 'version 2 to be pushed', timeoutMs: 15_000 },
        );
        const turns = (await suite.studio.http().get('/studio-api/v1/edits').set(bearer)).body.turns;
        expect(turns).toEqual([
          expect.objectContaining({ operationId: edit.body.operationId, instruction: 'add fog', status: 'succeeded', version: 2 }),
        ]);
        expect(stream.events.some((e) => e.event === 'edit.updated')).toBe(true);
        expect((await suite.api.http().get(`/v1/scenes/${fresh}`).set(suite.org.auth)).body.version).toBe(2);
      } finally {
        stream.close();
      }
    });

    it('refuses a stream without a valid secret', async () => {
      const stream = await SseClient.open(`${suite.studio.url}/studio-api/v1/events`, { Authorization: `Bearer ${'B'.repeat(43)}` });
      expect(stream.status).toBe(401);
    });
  });

  it('edit validation: instruction required, 1 to 2000 characters, JSON only', async () => {
    const s = await session('edit');
    expectProblem(await suite.studio.http().post('/studio-api/v1/edits').set(s.bearer).send({}), 422, 'validation_failed');
    expectProblem(
      await suite.studio
        .http()
        .post('/studio-api/v1/edits')
        .set(s.bearer)
        .send({ instruction: 'x'.repeat(2001) }),
      422,
      'validation_failed',
    );
    expectProblem(
      await suite.studio.http().post('/studio-api/v1/edits').set(s.bearer).send({ instruction: 'x', mode: 'perform' }),
      422,
      'validation_failed',
    );
    expectProblem(
      await suite.studio.http().post('/studio-api/v1/edits').set(s.bearer).set('Content-Type', 'text/plain').send('x'),
      415,
      'unsupported_media_type',
    );
    for (const instruction of ['add \ud800 fog', 'add\u0000fog', 'add \u202Efog']) {
      const res = await suite.studio.http().post('/studio-api/v1/edits').set(s.bearer).send({ instruction });
      expectProblem(res, 422, 'validation_failed');
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'instruction', code: 'invalid_characters' })]);
    }
  });
});
