import { BlobStore, BlobStream, PostgresBlobStore, Tx } from '@app/core';
import { ImageAssetsService } from '@app/image-assets';
import { ScenesService } from '@app/scenes';
import { OperationsService, SceneGenerationProcessor, ScenePurge, OperationsWorkerModule, SceneOperationsService } from '@app/operations';
// A test reads rows as they are; a lib would ask the scenes' services.
import { ScenesRepository } from '@app/scenes/scenes.repository';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { image } from '../factories/images';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { pollUntil } from '../support/poll';
import { setUpServices } from '../support/services';

/** What the processor reads of a BullMQ job: the first of three attempts. */
const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;

/**
 * The real store (the `blobs` table), watched: how many keys each delete asks for, and a delete
 * that fails (a worker killed mid-purge) or waits (a worker slow mid-purge) when a test says so.
 */
class WatchedBlobStore extends BlobStore {
  inner!: BlobStore;
  readonly deleteSizes: number[] = [];
  /** The delete call (counted from when it was set, 1 = the next) that throws. */
  failAt: number | null = null;
  /** While set, a delete waits for it to resolve; `held` says one is waiting. */
  hold: Promise<void> | null = null;
  held = false;

  put(key: string, bytes: Buffer, contentType: string, tx?: Tx): Promise<void> {
    return this.inner.put(key, bytes, contentType, tx);
  }
  get(key: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    return this.inner.get(key);
  }
  open(key: string): Promise<BlobStream | null> {
    return this.inner.open(key);
  }
  async delete(keys: string[], tx?: Tx): Promise<number> {
    this.deleteSizes.push(keys.length);
    if (this.failAt !== null && --this.failAt === 0) {
      this.failAt = null;
      throw new Error('worker killed mid-purge');
    }
    if (this.hold) {
      this.held = true;
      await this.hold;
    }
    return this.inner.delete(keys, tx);
  }
}

/**
 * The purge of deleted scenes (`scenes.purge-deleted`, ScenePurge) on a real database, called
 * directly: what it erases and what it leaves (an identifier tombstone), the source image rule,
 * several purges at once, a purge killed mid-way, and a backlog larger than its batches.
 */
describe('the purge of deleted scenes on a real database', () => {
  const blobs = new WatchedBlobStore();
  const suite = setUpServices({
    imports: [OperationsWorkerModule],
    overrides: [[BlobStore, blobs]],
    // The scenes are generated in this process, on a machine shared with the rest of the suite: a
    // request-path timeout of 1.5 s judged the jest worker's event loop, which no test here is about.
    config: { REDIS_COMMAND_TIMEOUT_MS: '10000' },
  });
  let org: TestOrganization;
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const purge = () => suite.app.get(ScenePurge).purgeDeleted();
  const processor = () => suite.app.get(SceneGenerationProcessor);
  const db = () => suite.app.get(DataSource);

  beforeAll(async () => {
    blobs.inner = new PostgresBlobStore(suite.app.get(DataSource));
    org = await createOrganization(suite.app);
  });
  beforeEach(async () => {
    // Each test starts with nothing left to purge.
    await purge();
    blobs.deleteSizes.length = 0;
  });

  async function upload(): Promise<string> {
    return (await suite.app.get(ImageAssetsService).upload(org.organizationId, await image('png', 1920, 1080))).asset.imageAssetId;
  }

  async function readyScene(prompt: string, sourceAssetId?: string) {
    const key = { key: randomUUID(), scope: 'POST /v1/scenes' };
    const body = { prompt, externalRef: `purge-${randomUUID()}`, ...(sourceAssetId ? { sourceAssetId } : {}) };
    const created = await sceneOperations().create(org.organizationId, key, body);
    await processor().generate({ operationId: created.value.operationId }, firstAttempt);
    const sceneId = (await scenes().findByExternalRef(org.organizationId, body.externalRef))!.sceneId;
    return { sceneId, key, body, created };
  }

  /** A deleted scene whose rows name `files` blobs of its own, planted directly: a large purge without generating it. */
  async function deletedSceneWithFiles(files: number): Promise<string> {
    const { sceneId } = await readyScene('A scene with many files');
    await db().query(
      `INSERT INTO scene_versions (scene_id, version, operation_id, generator, spec, created_at)
       SELECT $1, v, 'op_planted', 'procedural', '{}', now() FROM generate_series(2, $2::int + 1) AS v`,
      [sceneId, files],
    );
    await db().query(
      `INSERT INTO blobs (key, content, content_type, size_bytes, created_at)
       SELECT 'scenes/' || $1 || '/v' || v || '/mesh.glb', '\\x676c5446', 'model/gltf-binary', 4, now() FROM generate_series(2, $2::int + 1) AS v`,
      [sceneId, files],
    );
    await db().query(
      `INSERT INTO scene_artifacts (scene_id, version, kind, blob_key, content_type, bytes, sha256)
       SELECT $1, v, 'mesh', 'scenes/' || $1 || '/v' || v || '/mesh.glb', 'model/gltf-binary', 4, repeat('a', 64)
         FROM generate_series(2, $2::int + 1) AS v`,
      [sceneId, files],
    );
    await scenes().delete(org.organizationId, sceneId);
    return sceneId;
  }

  const count = async (sql: string, params: unknown[]) => (await db().query<{ n: number }[]>(sql, params))[0].n;
  const sceneBlobs = (sceneId: string) => count(`SELECT count(*)::int AS n FROM blobs WHERE key LIKE $1`, [`scenes/${sceneId}/%`]);
  const sceneArtifacts = (sceneId: string) => count(`SELECT count(*)::int AS n FROM scene_artifacts WHERE scene_id = $1`, [sceneId]);
  const purgedAt = async (sceneId: string) =>
    (await db().query<{ purged_at: Date | null }[]>(`SELECT purged_at FROM scenes WHERE id = $1`, [sceneId]))[0].purged_at;
  const imageExists = async (id: string) =>
    (await count(`SELECT count(*)::int AS n FROM image_assets WHERE id = $1`, [id])) === 1 &&
    (await blobs.get(`image-assets/${id}`)) !== null;

  it("erases a deleted scene's files, versions, prompt, externalRef, edit instructions and source image, leaving an id tombstone", async () => {
    const prompt = `A windswept lighthouse ${randomUUID()}`;
    const instruction = `Paint the lighthouse red ${randomUUID()}`;
    const imageId = await upload();
    const scene = await readyScene(prompt, imageId);
    const edit = await sceneOperations().requestEdit(org.organizationId, scene.sceneId, instruction);
    await processor().edit({ operationId: edit.operationId }, firstAttempt);
    // A revert's version names version 1's files again: each blob goes once.
    const revert = await sceneOperations().requestRevert(org.organizationId, scene.sceneId, 1);
    await processor().edit({ operationId: revert.operationId }, firstAttempt);
    const repository = suite.app.get(ScenesRepository);
    const keys = new Set<string>();
    for (const v of [1, 2, 3]) for (const a of await repository.artifactsOf(scene.sceneId, v)) keys.add(a.blobKey);
    expect(keys.size).toBeGreaterThan(0);

    await scenes().delete(org.organizationId, scene.sceneId);
    // The deletion itself only hides it (at once); the erasure is the purge's, in small steps.
    expect(await sceneArtifacts(scene.sceneId)).toBeGreaterThan(0);

    expect(await purge()).toMatchObject({ scenes: 1, files: keys.size, sourceImages: 1 });

    const [tombstone] = await db().query<Record<string, unknown>[]>(`SELECT * FROM scenes WHERE id = $1`, [scene.sceneId]);
    expect(tombstone).toEqual({
      id: scene.sceneId,
      organization_id: org.organizationId,
      external_ref: null,
      prompt: null,
      source_asset_id: null,
      status: 'ready',
      current_version: 3,
      creating_operation_id: scene.created.value.operationId,
      created_at: expect.any(Date),
      updated_at: expect.any(Date),
      deleted_at: expect.any(Date),
      purged_at: expect.any(Date),
    });
    expect(await count(`SELECT count(*)::int AS n FROM scene_versions WHERE scene_id = $1`, [scene.sceneId])).toBe(0);
    expect(await sceneArtifacts(scene.sceneId)).toBe(0);
    for (const key of keys) expect(await blobs.get(key)).toBeNull();
    expect(await imageExists(imageId)).toBe(false);
    // The operations stay (retention erases them 30 days after they ended), without instructions.
    const ops = await db().query<{ instruction: string | null; scene_deleted_at: Date }[]>(
      `SELECT instruction, scene_deleted_at FROM operations WHERE scene_id = $1`,
      [scene.sceneId],
    );
    expect(ops).toHaveLength(3);
    for (const op of ops) expect(op).toEqual({ instruction: null, scene_deleted_at: tombstone.deleted_at });
    // No table holds the partner's words any more.
    for (const table of ['scenes', 'scene_versions', 'scene_artifacts', 'operations', 'image_assets', 'idempotency_keys', 'camera_paths']) {
      const found = await count(
        `SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE '%' || $1 || '%' OR t::text LIKE '%' || $2 || '%'`,
        [prompt, instruction],
      );
      expect({ table, found }).toEqual({ table, found: 0 });
    }

    // Under the tombstone, the creating request still replays and everything stays 404.
    const replay = await sceneOperations().create(org.organizationId, scene.key, scene.body);
    expect(replay).toEqual({ value: scene.created.value, replayed: true });
    expect(await scenes().get(org.organizationId, scene.sceneId)).toBeNull();
    expect(await scenes().findByExternalRef(org.organizationId, scene.body.externalRef)).toBeNull();
    expect(await suite.app.get(OperationsService).get(org.organizationId, scene.created.value.operationId)).toBeNull();
    await scenes().delete(org.organizationId, scene.sceneId);
    expect(await purge()).toMatchObject({ scenes: 0, files: 0, sourceImages: 0 });
  });

  it('keeps a source image another scene still names: an active one, a failed one, or a deleted one until its own purge', async () => {
    const shared = await upload();
    const [a, b, c] = [await readyScene('A', shared), await readyScene('B', shared), await readyScene('C', shared)];
    await scenes().delete(org.organizationId, a.sceneId);
    expect(await purge()).toMatchObject({ scenes: 1, sourceImages: 0 });
    expect(await imageExists(shared)).toBe(true);
    expect(await scenes().get(org.organizationId, b.sceneId)).toMatchObject({ status: 'ready' });
    // Two deletions, one purge: the first scene purged keeps it for the second, which erases it.
    await scenes().delete(org.organizationId, b.sceneId);
    await scenes().delete(org.organizationId, c.sceneId);
    expect(await purge()).toMatchObject({ scenes: 2, sourceImages: 1 });
    expect(await imageExists(shared)).toBe(false);

    // A creation that failed (here: cancelled) is not deleted: its image stays while it names it.
    const kept = await upload();
    const failed = await sceneOperations().create(
      org.organizationId,
      { key: randomUUID(), scope: 'POST /v1/scenes' },
      { prompt: 'Soon cancelled', sourceAssetId: kept },
    );
    expect(await suite.app.get(OperationsService).cancel(org.organizationId, failed.value.operationId)).toMatchObject({
      error: { code: 'cancelled' },
    });
    const deleted = await readyScene('D', kept);
    await scenes().delete(org.organizationId, deleted.sceneId);
    expect(await purge()).toMatchObject({ scenes: 1, sourceImages: 0 });
    expect(await imageExists(kept)).toBe(true);
  });

  it('a creation naming the image while the purge erases it either keeps the image or is refused, never a scene without its image', async () => {
    for (let i = 0; i < 10; i++) {
      const imageId = await upload();
      const first = await readyScene(`First ${i}`, imageId);
      await scenes().delete(org.organizationId, first.sceneId);
      const [, second] = await Promise.allSettled([
        purge(),
        sceneOperations().create(
          org.organizationId,
          { key: randomUUID(), scope: 'POST /v1/scenes' },
          { prompt: `Second ${i}`, sourceAssetId: imageId },
        ),
      ]);
      if (second.status === 'fulfilled') {
        expect(await imageExists(imageId)).toBe(true);
      } else {
        expect(second.reason).toMatchObject({ code: 'source_asset_not_found' });
        expect(await imageExists(imageId)).toBe(false);
      }
      expect(await purgedAt(first.sceneId)).toBeInstanceOf(Date);
    }
  });

  it('purges in batches of at most 100 files, each step its own transaction, and works through the backlog in one run', async () => {
    const big = await deletedSceneWithFiles(250);
    const small = await deletedSceneWithFiles(3);
    expect(await purge()).toMatchObject({ scenes: 2, files: 250 + 3 + 2, sourceImages: 0 });
    expect(Math.max(...blobs.deleteSizes)).toBeLessThanOrEqual(100);
    expect(blobs.deleteSizes.length).toBeGreaterThanOrEqual(4);
    for (const id of [big, small]) {
      expect(await sceneBlobs(id)).toBe(0);
      expect(await purgedAt(id)).toBeInstanceOf(Date);
    }
  });

  it('a purge killed mid-way leaves no half-erased step, and the next run finishes', async () => {
    const sceneId = await deletedSceneWithFiles(250);
    blobs.failAt = 2;
    await expect(purge()).rejects.toThrow('worker killed mid-purge');
    // The first batch is gone with its rows; the failed one rolled back: every row left still has its blob.
    expect(await sceneArtifacts(sceneId)).toBe(251 - 100);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM scene_artifacts a WHERE a.scene_id = $1 AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.key = a.blob_key)`,
        [sceneId],
      ),
    ).toBe(0);
    expect(await purgedAt(sceneId)).toBeNull();
    expect((await db().query<{ prompt: string }[]>(`SELECT prompt FROM scenes WHERE id = $1`, [sceneId]))[0].prompt).toBe(
      'A scene with many files',
    );

    expect(await purge()).toMatchObject({ scenes: 1, files: 251 - 100, sourceImages: 0 });
    expect(await sceneBlobs(sceneId)).toBe(0);
    expect(await purgedAt(sceneId)).toBeInstanceOf(Date);
  });

  it('purges running at once share the backlog: a scene one of them holds is skipped, not waited for, and none is purged twice', async () => {
    const first = await deletedSceneWithFiles(2);
    const second = await deletedSceneWithFiles(2);
    let release!: () => void;
    blobs.hold = new Promise<void>((resolve) => (release = resolve));
    blobs.held = false;
    // The first purge takes the oldest deleted scene and stops inside its first step.
    const slow = purge();
    await pollUntil(
      () => Promise.resolve(blobs.held),
      (held) => held,
      { what: 'the first purge to hold its scene' },
    );
    blobs.hold = null;
    // Another worker's purge meanwhile finishes the other scene without waiting for the held one.
    expect(await purge()).toMatchObject({ scenes: 1, files: 3, sourceImages: 0 });
    expect(await purgedAt(second)).toBeInstanceOf(Date);
    expect(await purgedAt(first)).toBeNull();
    release();
    expect(await slow).toMatchObject({ scenes: 1, files: 3, sourceImages: 0 });
    expect(await purgedAt(first)).toBeInstanceOf(Date);

    // Many at once: every scene purged exactly once, every blob deleted once.
    // Made one after another: twelve generations at once in this process held its event loop for
    // seconds, long enough for a Redis command's timer to fire before its answer was read.
    const many: string[] = [];
    for (let i = 0; i < 12; i++) many.push(await deletedSceneWithFiles(5));
    const results = await Promise.all([purge(), purge(), purge()]);
    expect(results.reduce((n, r) => n + r.scenes, 0)).toBe(12);
    expect(results.reduce((n, r) => n + r.files, 0)).toBe(12 * 6);
    for (const id of many) expect(await purgedAt(id)).toBeInstanceOf(Date);
  });
});
