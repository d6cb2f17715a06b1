import { EmbedSessionsService } from '@app/embed-sessions';
import { OperationsService, SceneOperationsService } from '@app/operations';
import { ScenesService } from '@app/scenes';
import { SceneGenerationProcessor, OperationsWorkerModule, ScenePurge } from '@app/operations';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { createOrganization, TestOrganization } from '../factories/organization.factory';
import { setUpServices } from '../support/services';

/** What the processor reads of a BullMQ job: the first of three attempts. */
const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;

describe('generation and edits on a real database, the worker side called directly', () => {
  const suite = setUpServices({ imports: [OperationsWorkerModule] });
  let org: TestOrganization;
  const scenes = () => suite.app.get(ScenesService);
  const sceneOperations = () => suite.app.get(SceneOperationsService);
  const processor = () => suite.app.get(SceneGenerationProcessor);
  const operations = () => suite.app.get(OperationsService);
  const newKey = () => ({ key: randomUUID(), scope: 'POST /v1/scenes' });

  beforeAll(async () => {
    org = await createOrganization(suite.app);
  });

  async function readyScene(externalRef: string): Promise<string> {
    const created = await sceneOperations().create(org.organizationId, newKey(), { prompt: 'A pine forest by a lake', externalRef });
    const operationId = created.value.operationId;
    await processor().generate({ operationId }, firstAttempt);
    return (await scenes().findByExternalRef(org.organizationId, externalRef))!.sceneId;
  }

  it('a generation job writes version 1 once, even when it runs twice', async () => {
    const created = await sceneOperations().create(org.organizationId, newKey(), { prompt: 'A harbour at dawn', externalRef: 'gen-1' });
    const operationId = created.value.operationId;
    await processor().generate({ operationId }, firstAttempt);
    expect(await processor().generate({ operationId }, firstAttempt)).toEqual({ skipped: 'succeeded' });

    expect(await operations().get(org.organizationId, operationId)).toMatchObject({ status: 'succeeded', version: 1 });
    const scene = (await scenes().findByExternalRef(org.organizationId, 'gen-1'))!;
    expect(scene).toMatchObject({ status: 'ready', version: 1 });
    expect((await scenes().readSceneFile(scene.sceneId, 1))!.subarray(0, 4).toString('latin1')).toBe('glTF');
    expect(await scenes().readSceneFile(scene.sceneId, 2)).toBeNull();
  });

  it('an edit makes version 2 and shows in the edit turns; a generating scene refuses edits', async () => {
    const sceneId = await readyScene('gen-edit');
    const edit = await sceneOperations().requestEdit(org.organizationId, sceneId, 'Make it winter');
    expect((await sceneOperations().editTurns(sceneId)).map((t) => [t.instruction, t.status])).toEqual([['Make it winter', 'processing']]);
    await processor().edit({ operationId: edit.operationId }, firstAttempt);
    expect(await sceneOperations().editTurns(sceneId)).toEqual([
      expect.objectContaining({ instruction: 'Make it winter', status: 'succeeded', version: 2 }),
    ]);
    expect(await scenes().get(org.organizationId, sceneId)).toMatchObject({ version: 2 });

    await sceneOperations().create(org.organizationId, newKey(), { prompt: 'Not yet', externalRef: 'gen-pending' });
    const pending = (await scenes().findByExternalRef(org.organizationId, 'gen-pending'))!.sceneId;
    await expect(sceneOperations().requestEdit(org.organizationId, pending, 'Too early')).rejects.toMatchObject({
      code: 'scene_not_ready',
    });
  });

  it("the studio's watch sees a session's scene change version and end when the scene is deleted", async () => {
    const sceneId = await readyScene('gen-watch');
    const principal = { organizationId: org.organizationId, keyId: org.keyId, isTest: true };
    const sessions = suite.app.get(EmbedSessionsService);
    const session = await sessions.create(principal, { sceneId, origin: 'http://localhost:5173', mode: 'edit' });
    expect(await sessions.watch([session.embedSessionId])).toEqual([
      expect.objectContaining({
        id: session.embedSessionId,
        scene: expect.objectContaining({ status: 'ready', version: 1, deleted: false }),
      }),
    ]);
    await scenes().delete(org.organizationId, sceneId);
    // Ended by the deletion itself: its row is marked by the follow-up job, run below as a worker would.
    const [after] = await sessions.watch([session.embedSessionId]);
    expect(after.scene.deleted).toBe(true);
    expect(after.revokedAt).toBeNull();
    await expect(suite.app.get(ScenePurge).finishDeletion({ sceneId })).resolves.toEqual({ finished: true });
    const [marked] = await sessions.watch([session.embedSessionId]);
    expect(marked.revokedAt).toBeInstanceOf(Date);
  });
});
