import { BacklogPlace, GenerationBacklogs, UsageService } from '@app/tenancy';
import { WebhookOutbox } from '@app/webhooks';
import { Injectable } from '@nestjs/common';
import { OperationError } from './operation-error';
import { toOperationResponse } from './operation-view';
import { EndedOperation, OperationsRepository } from './operations.repository';
import { SceneChanges } from './scene-changes';
import { Tx } from '@app/core';

/**
 * The one way an operation ends. Each end is announced in the same transaction
 * (`operation.succeeded` / `operation.failed`, the operation as GET shows it then), so a webhook
 * exists exactly when the end committed. Operations ended by their scene's deletion are not
 * announced: their scene is gone and so are they; `scene.deleted` says it. Each end is counted in
 * the organization's usage in the same transaction too, taken off its backlog (waiting or
 * running, whichever it was), which admission counts by, and broadcast once it commits
 * (SceneChanges: open studios show the scene's new state).
 */
@Injectable()
export class OperationOutcomes {
  constructor(
    private readonly operations: OperationsRepository,
    private readonly outbox: WebhookOutbox,
    private readonly usage: UsageService,
    private readonly changes: SceneChanges,
    private readonly backlogs: GenerationBacklogs,
  ) {}

  /** false when the operation had already ended (nothing changes, nothing is announced). */
  async succeeded(tx: Tx, id: string, version: number, at: Date): Promise<boolean> {
    const ended = await this.operations.markSucceeded(tx, id, version, at);
    if (!ended) return false;
    await this.usage.ended(tx, ended.organizationId, 'succeeded', at, placeOf(ended));
    await this.announce(tx, id, 'operation.succeeded', at);
    return true;
  }

  /**
   * `workMayGoOn`: the end does not stop the work (a partner's cancel, the scene's deletion), so a
   * started generation keeps its slot until the worker sees its work end (`slotReleased`).
   */
  async failed(tx: Tx, id: string, error: OperationError, at: Date, opts: { workMayGoOn?: boolean } = {}): Promise<boolean> {
    const ended = await this.operations.markFailed(tx, id, error, at, opts.workMayGoOn ?? false);
    if (!ended) return false;
    await this.usage.ended(tx, ended.organizationId, error.code === 'cancelled' ? 'cancelled' : 'failed', at, placeOf(ended));
    await this.announce(tx, id, 'operation.failed', at);
    return true;
  }

  /**
   * The work of an operation that ended while it went on (`cancelling`) has ended: what the provider
   * reported it cost is counted, and its slot is free. False when it held none (already released).
   */
  async slotReleased(tx: Tx, id: string, costUnits: number, at: Date): Promise<boolean> {
    const organizationId = await this.operations.releaseSlot(tx, id);
    if (!organizationId) return false;
    await this.usage.providerCost(tx, organizationId, costUnits, at);
    await this.backlogs.released(tx, organizationId);
    return true;
  }

  private async announce(tx: Tx, id: string, type: 'operation.succeeded' | 'operation.failed', at: Date): Promise<void> {
    const op = await this.operations.findVisibleIn(tx, id);
    if (!op) return;
    await this.outbox.emit(tx, op.organizationId, type, { ...toOperationResponse(op) }, at);
    this.changes.changedAfterCommit(tx, op.sceneId);
  }
}

function placeOf(ended: EndedOperation): BacklogPlace {
  return !ended.admitted ? 'waiting' : ended.holdsSlot ? 'holding' : 'running';
}
