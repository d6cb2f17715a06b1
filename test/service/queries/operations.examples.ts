import { AdmissionRepository } from '@app/operations/admission.repository';
import { GenerationBacklogRepository } from '@app/operations/generation-backlog.repository';
import { OperationFailures } from '@app/operations/operation-error';
import { OperationEntity } from '@app/operations/operation.entity';
import { OperationsRepository } from '@app/operations/operations.repository';
import { ProviderErasuresRepository } from '@app/operations/provider-erasures.repository';
import { newOperation } from '@app/operations/scene-operations.service';
import { randomUUID } from 'node:crypto';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

/** Operations these examples make, on the fixtures' scene: one edit, then one of each state needed. */
const ids = { edit: `op_q_${randomUUID()}`, waiting: `op_q_${randomUUID()}` };

/** An edit turn as scene-operations.service.ts builds one. */
function edit(f: Fixtures, id: string): OperationEntity {
  return newOperation(id, f.organizationId, f.sceneId, 'scene.edit', 'Add a lighthouse', f.now);
}

export const operationsExamples: RepositoryExamples<unknown>[] = [
  examplesOf<OperationsRepository>({
    type: OperationsRepository,
    make: (db) => new OperationsRepository(db),
    calls: {
      insert: async (r, tx, f) => {
        await r.insert(tx, edit(f, ids.edit));
        await r.insert(tx, edit(f, ids.waiting));
      },
      findVisible: (r, _tx, f) => r.findVisible(f.organizationId, ids.edit),
      sceneOf: (r, tx, f) => r.sceneOf(tx, f.organizationId, ids.edit),
      lockVisible: (r, tx, f) => r.lockVisible(tx, f.organizationId, ids.edit),
      findVisibleIn: (r, tx) => r.findVisibleIn(tx, ids.edit),
      transaction: (r) => r.transaction(async () => undefined),
      whileHoldingLock: (r) => r.whileHoldingLock(1_234_567, async () => undefined),
      findById: (r) => r.findById(ids.edit),
      lockById: (r, tx) => r.lockById(tx, ids.edit),
      markEnqueued: (r, _tx, f) => r.markEnqueued([ids.edit], f.now),
      setProgress: (r, _tx, f) => r.setProgress(ids.edit, 'generating', 0.25, f.now),
      recordJob: (r, _tx, f) => r.recordJob(ids.edit, 'procedural', { id: 'job-1' }, f.now),
      replaceJob: (r, _tx, f) => r.replaceJob(ids.edit, { id: 'job-2', state: { phase: 'refine' } }, f.now),
      touch: (r, _tx, f) => r.touch(ids.edit, f.now),
      stale: (r, _tx, f) => r.stale(f.now, 10),
      editsOfScene: (r, _tx, f) => r.editsOfScene(f.sceneId),
      editInFlight: (r, tx, f) => r.editInFlight(tx, f.sceneId),
      processingOfScene: (r, tx, f) => r.processingOfScene(tx, f.sceneId),
      markSucceeded: (r, tx, f) => r.markSucceeded(tx, ids.edit, 2, f.now),
      markFailed: (r, tx, f) => r.markFailed(tx, ids.waiting, OperationFailures.cancelled(), f.now, true),
      releaseSlot: (r, tx) => r.releaseSlot(tx, ids.waiting),
      markProviderCancelled: (r, _tx, f) => r.markProviderCancelled(ids.edit, f.now),
      eraseOfDeletedScene: (r, tx, f) => r.eraseOfDeletedScene(tx, `scn_q_${randomUUID()}`, f.now),
      deleteOfDeletedScenesEndedBefore: (r, _tx, f) => r.deleteOfDeletedScenesEndedBefore(f.now, 100),
    },
  }),
  examplesOf<AdmissionRepository>({
    type: AdmissionRepository,
    make: (db) => new AdmissionRepository(db),
    calls: {
      inTurn: (r) => r.inTurn(async () => undefined),
      admittedNotStarted: (r, tx) => r.admittedNotStarted(tx),
      turnsOf: (r, tx, f) => r.turnsOf(tx, [f.organizationId, f.otherOrganizationId]),
      oldestWaiting: (r, tx, f) => r.oldestWaiting(tx, f.organizationId, 5),
      admit: async (r, tx, f) => {
        const waiting = await r.oldestWaiting(tx, f.organizationId, 5);
        return r.admit(
          tx,
          waiting.length > 0 ? waiting : [{ id: f.operationId, organizationId: f.organizationId, kind: 'scene.create', revertTo: null }],
          f.now,
        );
      },
    },
  }),
  examplesOf<GenerationBacklogRepository>({
    type: GenerationBacklogRepository,
    make: (db) => new GenerationBacklogRepository(db),
    calls: {
      admittedInProgress: (r) => r.admittedInProgress(),
      oldestWaitingOf: (r, _tx, f) => r.oldestWaitingOf([f.organizationId, f.otherOrganizationId]),
    },
  }),
  examplesOf<ProviderErasuresRepository>({
    type: ProviderErasuresRepository,
    make: (db) => new ProviderErasuresRepository(db),
    calls: {
      addForScene: (r, tx, f) => r.addForScene(tx, f.sceneId, f.now),
      claimDue: (r, _tx, f) => r.claimDue(f.now, new Date(f.now.getTime() + 60_000), 10),
      done: (r, _tx, f) => r.done(ids.edit, [{ kind: 'world', id: 'w-1', outcome: 'deleted' }], f.now),
      retryAt: (r, _tx, f) => r.retryAt(ids.edit, new Date(f.now.getTime() + 60_000), 'provider_unavailable'),
      failed: (r, _tx, f) => r.failed(ids.edit, 'provider_unavailable', f.now),
    },
  }),
];
