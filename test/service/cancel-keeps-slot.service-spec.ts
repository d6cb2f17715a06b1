import { ScenesService } from '@app/scenes';
import {
  GenerationAdmission,
  OperationsService,
  SceneGenerationProcessor,
  OperationsWorkerModule,
  SceneOperationsService,
} from '@app/operations';
import { LimitsService } from '@app/tenancy';
import type { Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createOrganization } from '../factories/organization.factory';
import { untilAdmitted } from '../support/admission';
import { pollUntil } from '../support/poll';
import { setUpServices } from '../support/services';

const firstAttempt = { attemptsMade: 0, opts: { attempts: 3 } } as Job;

/**
 * The built-in generator: a generation cancelled after a worker started it keeps its slot until
 * that work has ended — the job that was making it finds it cancelled when it commits (or, run
 * again, finds nothing left to do) and frees the slot then — so an organization limited to 1 never
 * has a second one admitted meanwhile. One cancelled before its start holds nothing, and nothing is
 * sent or made for it.
 */
describe('a cancelled generation of the built-in generator keeps its slot until its work ends', () => {
  const suite = setUpServices({ imports: [OperationsWorkerModule] });
  const db = () => suite.app.get(DataSource);
  const create = (organizationId: string, prompt: string) =>
    suite.app.get(SceneOperationsService).create(organizationId, { key: randomUUID(), scope: 'POST /v1/scenes' }, { prompt });
  const opRow = async (id: string) =>
    (await db().query(`SELECT status, stage, admitted_at IS NOT NULL AS admitted FROM operations WHERE id = $1`, [id]))[0];
  const running = async (organizationId: string) =>
    (await db().query(`SELECT running FROM organization_backlogs WHERE organization_id = $1`, [organizationId]))[0].running as number;
  /** Admission rounds (the background loop admits too) until `id` is admitted; false when the deadline passes first. */
  const admitted = async (id: string) =>
    untilAdmitted(suite.app, id, 15_000).then(
      () => true,
      () => false,
    );
  /** `n` admission rounds that ran (not skipped because another held the lock), whatever they admitted. */
  const rounds = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await pollUntil(
        () => suite.app.get(GenerationAdmission).round(),
        (r) => r !== null,
        { what: 'an admission round that ran' },
      );
    }
  };

  it('cancelled while a worker makes it: failed at once for its partner, the slot held until the job ends, then the next admitted', async () => {
    const org = await createOrganization(suite.app);
    await suite.app.get(LimitsService).change(org.organizationId, { maxConcurrentGenerations: 1 });
    const first = (await create(org.organizationId, 'A harbour at dawn')).value.operationId;
    expect(await admitted(first)).toBe(true);
    // What a worker records before it makes anything (SceneGenerationProcessor.start).
    await db().query(`UPDATE operations SET stage = 'generating', started_at = now() WHERE id = $1`, [first]);

    const cancelled = await suite.app.get(OperationsService).cancel(org.organizationId, first);
    expect(cancelled).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
    expect(await opRow(first)).toMatchObject({ status: 'failed', stage: 'cancelling' });
    expect(await running(org.organizationId)).toBe(1);

    const second = (await create(org.organizationId, 'A lake at dusk')).value.operationId;
    await rounds(3);
    expect((await opRow(second)).admitted).toBe(false);

    // The job that was making it runs on (or again): it frees the slot once its work has ended.
    await suite.app.get(SceneGenerationProcessor).generate({ operationId: first }, firstAttempt);
    expect(await opRow(first)).toMatchObject({ status: 'failed', stage: null });
    expect(await running(org.organizationId)).toBe(0);
    expect(await admitted(second)).toBe(true);
    // And its partner still sees exactly what the cancel answered.
    expect(await suite.app.get(OperationsService).get(org.organizationId, first)).toEqual(cancelled);
  });

  it('cancelled before a worker started it: no slot held, and the job then makes nothing', async () => {
    const org = await createOrganization(suite.app);
    await suite.app.get(LimitsService).change(org.organizationId, { maxConcurrentGenerations: 1 });
    const id = (await create(org.organizationId, 'A quiet street')).value.operationId;
    expect(await admitted(id)).toBe(true);
    await suite.app.get(OperationsService).cancel(org.organizationId, id);
    expect(await opRow(id)).toMatchObject({ status: 'failed', stage: null });
    expect(await running(org.organizationId)).toBe(0);
    expect(await suite.app.get(SceneGenerationProcessor).generate({ operationId: id }, firstAttempt)).toEqual({ skipped: 'failed' });
    expect(
      await db().query(`SELECT count(*)::int AS n FROM scene_versions v JOIN operations o ON o.scene_id = v.scene_id WHERE o.id = $1`, [
        id,
      ]),
    ).toEqual([{ n: 0 }]);
  });
});
