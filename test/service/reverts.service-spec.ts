import { BlobStore } from '@app/core';
import { ScenesService } from '@app/scenes';
import { OperationsService, SceneGenerationProcessor, ScenePurge, OperationsWorkerModule, SceneOperationsService } from '@app/operations';
// A test reads rows as they are; a lib would ask the scenes' services.
import { ScenesRepository } from '@app/scenes/scenes.repository';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';

/** What the processor reads of a BullMQ job: the first of three attempts. */
const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;

/**
 * Reverts on a real database, the worker side called directly: what a revert writes, what it
 * refuses, and how it lands next to edits and deletions (docs/architecture.md, "Lock order").
 */
describe('reverting to an earlier version, the services and the worker on a real database', () => {
  const suite = setUpServices({ imports: [OperationsWorkerModule] });
  let org: TestOrganization;
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const repository = () => suite.app.get(ScenesRepository);
  const processor = () => suite.app.get(SceneGenerationProcessor);

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });

  async function readyScene(): Promise<string> {
    const externalRef = `revert-${randomUUID()}`;
    const created = await sceneOperations().create(
      org.organizationId,
      { key: randomUUID(), scope: 'POST /v1/scenes' },
      { prompt: 'A pine forest by a lake', externalRef },
    );
    await processor().generate({ operationId: created.value.operationId }, firstAttempt);
    return (await scenes().findByExternalRef(org.organizationId, externalRef))!.sceneId;
  }

  async function edit(sceneId: string, instruction: string): Promise<void> {
    const op = await sceneOperations().requestEdit(org.organizationId, sceneId, instruction);
    await processor().edit({ operationId: op.operationId }, firstAttempt);
  }

  const files = async (sceneId: string, version: number) =>
    (await repository().artifactsOf(sceneId, version)).map(({ kind, contentType, bytes, sha256 }) => ({
      kind,
      contentType,
      bytes,
      sha256,
    }));
  const spec = async (sceneId: string, version: number) => (await repository().findVersion(sceneId, version))!.spec;

  it('writes version n + 1 with the chosen version’s spec and files, once, even when its job runs twice', async () => {
    const sceneId = await readyScene();
    await edit(sceneId, 'Make it winter');
    expect(await spec(sceneId, 2)).not.toEqual(await spec(sceneId, 1));

    const op = await sceneOperations().requestRevert(org.organizationId, sceneId, 1);
    expect(await processor().edit({ operationId: op.operationId }, firstAttempt)).toEqual({ version: 3, revertedTo: 1 });
    expect(await processor().edit({ operationId: op.operationId }, firstAttempt)).toEqual({ skipped: 'succeeded' });

    expect(await spec(sceneId, 3)).toEqual(await spec(sceneId, 1));
    expect(await files(sceneId, 3)).toEqual(await files(sceneId, 1));
    expect((await repository().findVersion(sceneId, 3))!.generator).toBe((await repository().findVersion(sceneId, 1))!.generator);
    expect(await repository().findVersion(sceneId, 4)).toBeNull();
    expect(await scenes().get(org.organizationId, sceneId)).toMatchObject({ status: 'ready', version: 3 });
    expect(await suite.app.get(OperationsService).get(org.organizationId, op.operationId)).toMatchObject({
      status: 'succeeded',
      sceneId,
      version: 3,
    });
    expect((await sceneOperations().editTurns(sceneId)).map((t) => [t.instruction, t.revertTo, t.status, t.version])).toEqual([
      ['Make it winter', null, 'succeeded', 2],
      ['Revert to version 1', 1, 'succeeded', 3],
    ]);
  });

  it('refuses a version outside 1..current as not found, and a scene without a version as not ready', async () => {
    const sceneId = await readyScene();
    for (const version of [0, -1, 2, 1.5, Number.NaN]) {
      await expect(sceneOperations().requestRevert(org.organizationId, sceneId, version)).rejects.toMatchObject({ code: 'not_found' });
    }
    const other = await createOrganization(suite.app);
    await expect(sceneOperations().requestRevert(other.organizationId, sceneId, 1)).rejects.toMatchObject({ code: 'not_found' });
    expect(await sceneOperations().editTurns(sceneId)).toEqual([]);

    const pending = await sceneOperations().create(
      org.organizationId,
      { key: randomUUID(), scope: 'POST /v1/scenes' },
      { prompt: 'Not yet', externalRef: 'revert-pending' },
    );
    expect(pending.value.status).toBe('processing');
    const pendingId = (await scenes().findByExternalRef(org.organizationId, 'revert-pending'))!.sceneId;
    await expect(sceneOperations().requestRevert(org.organizationId, pendingId, 1)).rejects.toMatchObject({ code: 'scene_not_ready' });
  });

  it('an edit asked for while a revert runs is refused edit_in_progress; once the revert lands, it starts from it', async () => {
    const sceneId = await readyScene();
    await edit(sceneId, 'Add fog');
    const revert = await sceneOperations().requestRevert(org.organizationId, sceneId, 1);
    await expect(sceneOperations().requestEdit(org.organizationId, sceneId, 'Make it night')).rejects.toMatchObject({
      code: 'edit_in_progress',
    });
    await expect(sceneOperations().requestRevert(org.organizationId, sceneId, 2)).rejects.toMatchObject({ code: 'edit_in_progress' });
    expect(await processor().edit({ operationId: revert.operationId }, firstAttempt)).toEqual({ version: 3, revertedTo: 1 });

    await edit(sceneId, 'Make it night');
    const turns = await sceneOperations().editTurns(sceneId);
    expect(turns.map((t) => [t.instruction, t.status, t.version])).toEqual([
      ['Add fog', 'succeeded', 2],
      ['Revert to version 1', 'succeeded', 3],
      ['Make it night', 'succeeded', 4],
    ]);
    expect(await spec(sceneId, 3)).toEqual(await spec(sceneId, 1));
    expect(await scenes().get(org.organizationId, sceneId)).toMatchObject({ version: 4 });
  });

  it('a revert racing the deletion of its scene never deadlocks, and deletion removes the shared files once', async () => {
    for (let i = 0; i < 10; i++) {
      const sceneId = await readyScene();
      const keys = (await repository().artifactsOf(sceneId, 1)).map((a) => a.blobKey);
      const op = await sceneOperations().requestRevert(org.organizationId, sceneId, 1);
      await Promise.all([processor().edit({ operationId: op.operationId }, firstAttempt), scenes().delete(org.organizationId, sceneId)]);
      const outcome = await suite.app.get(OperationsService).get(org.organizationId, op.operationId);
      // Gone with its scene, whichever came first; its files with the purge that follows.
      expect(outcome).toBeNull();
      await suite.app.get(ScenePurge).purgeDeleted();
      expect(await repository().findVersion(sceneId, 2)).toBeNull();
      for (const key of keys) expect(await suite.app.get(BlobStore).get(key)).toBeNull();
    }
  });
});
