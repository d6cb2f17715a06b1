import { Injectable } from '@nestjs/common';
import { OperationResponse } from './dto/operation.response';
import { OperationEntity } from './operation.entity';
import { OperationsRepository } from './operations.repository';

@Injectable()
export class OperationsService {
  constructor(private readonly operations: OperationsRepository) {}

  /** null for unknown ids, another organization's, and operations of deleted scenes alike. */
  async get(organizationId: string, id: string): Promise<OperationResponse | null> {
    const op = await this.operations.findVisible(organizationId, id);
    return op ? toOperationResponse(op) : null;
  }
}

export function toOperationResponse(op: OperationEntity): OperationResponse {
  const base = { operationId: op.id, createdAt: op.createdAt.toISOString(), updatedAt: op.updatedAt.toISOString() };
  switch (op.status) {
    case 'processing':
      return { operationId: op.id, status: 'processing', createdAt: base.createdAt, updatedAt: base.updatedAt };
    case 'succeeded':
      return {
        operationId: op.id,
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
        status: 'failed',
        error: { code: op.errorCode!, message: op.errorMessage!, retryable: op.errorRetryable ?? false },
        createdAt: base.createdAt,
        updatedAt: base.updatedAt,
        completedAt: op.completedAt!.toISOString(),
      };
  }
}
