import { Idempotent } from '@app/core';
import type { Response } from 'express';

/**
 * The answer to a request that started an operation: 202 with the operation's Location, and
 * `Idempotent-Replayed: true` when the result is a replay of an earlier request's.
 */
export function acceptedOperation<T extends { operationId: string }>(res: Response, { value, replayed }: Idempotent<T>): T {
  res.status(202).setHeader('location', `/v1/operations/${value.operationId}`);
  if (replayed) res.setHeader('idempotent-replayed', 'true');
  return value;
}
