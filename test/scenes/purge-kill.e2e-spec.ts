import { MAINTENANCE_QUEUE, QueueService } from '@app/core';
import { DataSource } from 'typeorm';
import { createScene } from '../factories/scene.factory';
import { pollUntil } from '../support/poll';
import { ServiceProcess, startWorkerProcess } from '../support/processes';
import { setUpSuite } from '../support/suite';
import { SceneJob } from '@app/operations';

const FILES_PER_SCENE = 30_000;

/**
 * The purge of deleted scenes with real worker processes: a worker killed with SIGKILL in the
 * middle of a large purge leaves every scene either untouched or erased step by step (never a
 * file row without its bytes), and the next run, on another worker, finishes the work.
 */
describe('the purge survives a worker killed mid-purge', () => {
  // The api runs in this process, without a worker; the workers are real processes.
  const suite = setUpSuite({});
  const workers: ServiceProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await w.stop('SIGKILL');
  });

  const db = () => suite.api.app.get(DataSource);
  const count = async (sql: string, params: unknown[] = []) => (await db().query<{ n: number }[]>(sql, params))[0].n;

  /** A deleted scene naming FILES_PER_SCENE small files of its own, planted: a purge of hundreds of steps. */
  async function deletedSceneWithManyFiles(n: number): Promise<string> {
    const created = await createScene(suite.api, suite.org, { prompt: `A scene with many files ${n}`, externalRef: `many-${n}` });
    expect(created.status).toBe(202);
    const sceneId = (
      await suite.api
        .http()
        .get('/v1/scenes')
        .query({ externalRef: `many-${n}` })
        .set(suite.org.auth)
    ).body.sceneId as string;
    const series = `FROM generate_series(1, ${FILES_PER_SCENE}) AS v`;
    await db().query(
      `INSERT INTO scene_versions (scene_id, version, operation_id, generator, spec, created_at) SELECT $1, v, 'op_planted', 'procedural', '{}', now() ${series}`,
      [sceneId],
    );
    await db().query(
      `INSERT INTO blobs (key, content, content_type, size_bytes, created_at)
       SELECT 'scenes/' || $1 || '/v' || v || '/mesh.glb', '\\x676c5446', 'model/gltf-binary', 4, now() ${series}`,
      [sceneId],
    );
    await db().query(
      `INSERT INTO scene_artifacts (scene_id, version, kind, blob_key, content_type, bytes, sha256)
       SELECT $1, v, 'mesh', 'scenes/' || $1 || '/v' || v || '/mesh.glb', 'model/gltf-binary', 4, repeat('a', 64) ${series}`,
      [sceneId],
    );
    expect((await suite.api.http().delete(`/v1/scenes/${sceneId}`).set(suite.org.auth)).status).toBe(204);
    return sceneId;
  }

  const artifactsLeft = () => count(`SELECT count(*)::int AS n FROM scene_artifacts`);
  const purged = () => count(`SELECT count(*)::int AS n FROM scenes WHERE purged_at IS NOT NULL`);
  const runPurge = () => suite.api.app.get(QueueService).queue(MAINTENANCE_QUEUE).add(SceneJob.PurgeDeleted.name, {});

  it('leaves no file row without its bytes, and the next run on another worker finishes', async () => {
    const scenes = [await deletedSceneWithManyFiles(1), await deletedSceneWithManyFiles(2), await deletedSceneWithManyFiles(3)];
    const total = scenes.length * FILES_PER_SCENE;
    expect(await artifactsLeft()).toBe(total);

    const first = await startWorkerProcess(suite.env);
    workers.push(first);
    await runPurge();
    await pollUntil(artifactsLeft, (n) => n < total, { intervalMs: 10, what: 'the purge to start erasing', timeoutMs: 30_000 });
    await first.stop('SIGKILL');

    // Killed mid-way: some work done, some left, and every file row left still has its bytes.
    const left = await artifactsLeft();
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(total);
    expect(await purged()).toBeLessThan(scenes.length);
    expect(
      await count(`SELECT count(*)::int AS n FROM scene_artifacts a WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.key = a.blob_key)`),
    ).toBe(0);
    const unpurged = await db().query<{ prompt: string | null }[]>(
      `SELECT prompt FROM scenes WHERE purged_at IS NULL AND deleted_at IS NOT NULL`,
    );
    for (const row of unpurged) expect(row.prompt).toMatch(/^A scene with many files/);

    const second = await startWorkerProcess(suite.env);
    workers.push(second);
    await runPurge();
    await pollUntil(purged, (n) => n === scenes.length, { what: 'the next run to purge every scene', timeoutMs: 60_000 });
    expect(await artifactsLeft()).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM blobs WHERE key LIKE 'scenes/%'`)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM scenes WHERE prompt IS NOT NULL OR external_ref IS NOT NULL`)).toBe(0);
  });
});
