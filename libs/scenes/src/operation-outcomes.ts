import { UsageService } from '@app/tenancy';
import { WebhookOutbox } from '@app/webhooks';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { OperationError } from './operation-error';
import { toOperationResponse } from './operation-view';
import { OperationsRepository } from './operations.repository';

/**
 * The one way an operation ends. Each end is announced in the same transaction
 * (`operation.succeeded` / `operation.failed`, the operation as GET shows it then), so a webhook
 * exists exactly when the end committed. Operations ended by their scene's deletion are not
 * announced: their scene is gone and so are they; `scene.deleted` says it. Each end is counted in
 * the organization's usage in the same transaction too, and taken off its backlog (waiting or
 * running, whichever it was), which admission counts by.
 */
@Injectable()
export class OperationOutcomes {
  constructor(
    private readonly operations: OperationsRepository,
    private readonly outbox: WebhookOutbox,
    private readonly usage: UsageService,
  ) {}

  /** false when the operation had already ended (nothing changes, nothing is announced). */
  async succeeded(tx: EntityManager, id: string, version: number, at: Date): Promise<boolean> {
    const ended = await this.operations.markSucceeded(tx, id, version, at);
    if (!ended) return false;
    await this.usage.ended(tx, ended.organizationId, 'succeeded', at, ended.admitted);
    await this.announce(tx, id, 'operation.succeeded', at);
    return true;
  }

  async failed(tx: EntityManager, id: string, error: OperationError, at: Date): Promise<boolean> {
    const ended = await this.operations.markFailed(tx, id, error, at);
    if (!ended) return false;
    await this.usage.ended(tx, ended.organizationId, error.code === 'cancelled' ? 'cancelled' : 'failed', at, ended.admitted);
    await this.announce(tx, id, 'operation.failed', at);
    return true;
  }

  private async announce(tx: EntityManager, id: string, type: 'operation.succeeded' | 'operation.failed', at: Date): Promise<void> {
    const op = await this.operations.findVisibleIn(tx, id);
    if (op) await this.outbox.emit(tx, op.organizationId, type, { ...toOperationResponse(op) }, at);
  }
}
