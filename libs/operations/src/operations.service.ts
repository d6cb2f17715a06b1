import { Clock } from '@app/core';
import { Injectable } from '@nestjs/common';
import { OperationResponse } from './dto/operation.response';
import { OperationFailures } from './operation-error';
import { OperationOutcomes } from './operation-outcomes';
import { toOperationResponse } from './operation-view';
import { OperationsRepository } from './operations.repository';
import { AdmissionSignal } from './admission-signal';
import { SceneJobScheduler } from './scene-job-scheduler';
import { SceneStore } from '@app/scenes';
import { OperationLocks } from './operation-locks';

@Injectable()
export class OperationsService {
  constructor(
    private readonly operations: OperationsRepository,
    private readonly scenes: SceneStore,
    private readonly jobs: SceneJobScheduler,
    private readonly outcomes: OperationOutcomes,
    private readonly admission: AdmissionSignal,
    private readonly clock: Clock,
    private readonly locks: OperationLocks,
  ) {}

  /** null for unknown ids, another organization's, and operations of deleted scenes alike. */
  async get(organizationId: string, id: string): Promise<OperationResponse | null> {
    const op = await this.operations.findVisible(organizationId, id);
    return op ? toOperationResponse(op) : null;
  }

  /**
   * Cancels a processing operation: it ends `failed` with `cancelled` (retryable) at once, and a
   * creation's scene is released (its externalRef free again) in the same transaction, so no late
   * result can be written. The worker cancels the provider's job when it next sees the operation;
   * its job is woken so that happens now rather than at its next poll. A finished operation is
   * returned unchanged. null where `get` would be null.
   */
  async cancel(organizationId: string, id: string): Promise<OperationResponse | null> {
    const now = this.clock.now();
    const result = await this.operations.transaction(async (tx) => {
      const op = await this.locks.lockSceneThenVisibleOperation(tx, organizationId, id);
      if (!op || op.status !== 'processing') return op ? { op, cancelled: false } : null;
      // A started generation's work goes on at the provider (or in a worker): it keeps its slot
      // until that ends, so cancelling never lets an organization run more than its limit.
      await this.outcomes.failed(tx, op.id, OperationFailures.cancelled(), now, { workMayGoOn: true });
      if (op.kind === 'scene.create') await this.scenes.markCreationFailed(tx, op.sceneId, now);
      return { op, cancelled: true };
    });
    if (!result) return null;
    if (!result.cancelled) return toOperationResponse(result.op);
    await this.jobs.wake(result.op.id);
    // The organization runs one fewer: its next waiting operation may be admitted.
    this.admission.wake();
    return this.get(organizationId, id);
  }
}
