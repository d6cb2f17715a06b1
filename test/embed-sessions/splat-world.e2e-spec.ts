import { createHash } from 'node:crypto';
import { inspectSpz, readGlb, readSpzPoints, SPZ_CONTENT_TYPE } from '@app/generation';
import { createEmbedSession, parseEmbedUrl, readyScene } from '../factories/embed.factory';
import type { RunningHttpApp } from '../support/apps';
import { setUpSuite } from '../support/suite';

const ORIGIN = 'http://localhost:5173';

const SPLATS = 3000;

/**
 * PROCEDURAL_SPLATS=true: a scene generated with no network is stored as a splat world (an SPZ
 * and its collider, no mesh), and the studio API lists and serves both as a provider's world.
 */

/** Version 1's artifact of `kind`, its body as it arrived (superagent would otherwise try to parse it). */
const artifact = (studio: RunningHttpApp, bearer: { Authorization: string }, kind: string) =>
  studio
    .http()
    .get(`/studio-api/v1/scene/versions/1/artifacts/${kind}`)
    .set(bearer)
    .buffer(true)
    .parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });

describe('a procedural splat world through the worker and the studio API', () => {
  const suite = setUpSuite({
    studio: {},
    worker: { config: { PROCEDURAL_SPLATS: 'true', PROCEDURAL_SPLAT_COUNT: String(SPLATS) } },
    org: { test: true },
  });

  it('stores a splat and a collider, listed with their digests and served with their types', async () => {
    const sceneId = await readyScene(suite.api, suite.org, { prompt: 'A misty pine forest by a lake at dawn' });
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode: 'perform' });
    expect(res.status).toBe(201);
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
    const download = (kind: string) => artifact(suite.studio, bearer, kind);

    const list = await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts').set(bearer);
    expect(list.status).toBe(200);
    const kinds = (list.body.artifacts as { kind: string }[]).map((a) => a.kind).sort();
    expect(kinds).toEqual(['collider', 'splat']);

    const splat = await download('splat');
    expect(splat.status).toBe(200);
    expect(splat.headers['content-type']).toBe(SPZ_CONTENT_TYPE);
    const bytes = splat.body as Buffer;
    expect(inspectSpz(bytes, 64 * 1024 * 1024)).toEqual({ version: 3, points: SPLATS, shDegree: 0 });
    const listed = (list.body.artifacts as { kind: string; bytes: number; sha256: string }[]).find((a) => a.kind === 'splat')!;
    expect(listed).toMatchObject({
      contentType: SPZ_CONTENT_TYPE,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });

    const collider = await download('collider');
    expect(collider.headers['content-type']).toMatch(/^model\/gltf-binary/);
    expect((await readGlb(collider.body as Buffer)).getRoot().listMeshes().length).toBeGreaterThan(3);
    // No mesh: the studio draws the splat and keeps the collider for picking.
    expect((await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts/mesh').set(bearer)).status).toBe(404);
  });
});

/**
 * A world of more than twice SPLAT_PREVIEW_COUNT splats is stored with a coarse preview beside
 * it (libs/generation/src/splat-previews.ts), listed and served like its other files.
 */
describe('a splat world with its preview, through the worker and the studio API', () => {
  const PREVIEW = 400;
  const suite = setUpSuite({
    studio: {},
    worker: { config: { PROCEDURAL_SPLATS: 'true', PROCEDURAL_SPLAT_COUNT: String(SPLATS), SPLAT_PREVIEW_COUNT: String(PREVIEW) } },
    org: { test: true },
  });

  it('stores a preview of at most SPLAT_PREVIEW_COUNT splats, most of that budget used, within the world', async () => {
    const sceneId = await readyScene(suite.api, suite.org, { prompt: 'A misty pine forest by a lake at dawn' });
    const res = await createEmbedSession(suite.api, suite.org, { sceneId, origin: ORIGIN, mode: 'perform' });
    const bearer = { Authorization: `Bearer ${parseEmbedUrl(res.body.url).secret}` };
    const list = await suite.studio.http().get('/studio-api/v1/scene/versions/1/artifacts').set(bearer);
    expect((list.body.artifacts as { kind: string }[]).map((a) => a.kind).sort()).toEqual(['collider', 'splat', 'splat-preview']);

    const download = async (kind: string) => {
      const r = await artifact(suite.studio, bearer, kind);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe(SPZ_CONTENT_TYPE);
      return r.body as Buffer;
    };
    const preview = await download('splat-preview');
    const { points } = inspectSpz(preview, 64 * 1024 * 1024);
    expect(points).toBeLessThanOrEqual(PREVIEW);
    expect(points).toBeGreaterThan(PREVIEW * 0.7);
    // Every preview splat lies within the world's bounds (a merge is a weighted mean of members).
    const bounds = (splats: { position: number[] }[]) =>
      [0, 1, 2].map((k) => [Math.min(...splats.map((s) => s.position[k])), Math.max(...splats.map((s) => s.position[k]))]);
    const world = bounds(readSpzPoints(await download('splat')));
    bounds(readSpzPoints(preview)).forEach(([lo, hi], k) => {
      expect(lo).toBeGreaterThanOrEqual(world[k][0] - 1e-3);
      expect(hi).toBeLessThanOrEqual(world[k][1] + 1e-3);
    });
  });
});
