import { OperationResponse } from './dto/operation.response';
import { VisibleOperation } from './operations.repository';

/** The operation as `GET /v1/operations/{id}` shows it, and as its webhooks carry it. */
export function toOperationResponse(op: VisibleOperation): OperationResponse {
  const base = { operationId: op.id, createdAt: op.createdAt.toISOString(), updatedAt: op.updatedAt.toISOString() };
  // Kind and externalRef let a webhook receiver route the event without a GET of its own.
  const about = { kind: op.kind, externalRef: op.externalRef };
  switch (op.status) {
    case 'processing':
      return {
        operationId: op.id,
        ...about,
        status: 'processing',
        progress: op.progress ?? 0,
        // `cancelling` belongs to ended operations only.
        stage: op.stage === null || op.stage === 'cancelling' ? 'queued' : op.stage,
        createdAt: base.createdAt,
        updatedAt: base.updatedAt,
      };
    case 'succeeded':
      return {
        operationId: op.id,
        ...about,
        status: 'succeeded',
        sceneId: op.sceneId,
        version: op.version!,
        createdAt: base.createdAt,
        updatedAt: base.updatedAt,
        completedAt: op.completedAt!.toISOString(),
      };
    case 'failed':
      return {
        operationId: op.id,
        ...about,
        status: 'failed',
        error: { code: op.errorCode!, message: op.errorMessage!, retryable: op.errorRetryable ?? false },
        createdAt: base.createdAt,
        updatedAt: base.updatedAt,
        completedAt: op.completedAt!.toISOString(),
      };
  }
}
