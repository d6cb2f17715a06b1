import { entityColumns, rawQuery, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OperationEntity } from './operation.entity';
import { ProviderErasureEntity, StoredProviderObject } from './provider-erasure.entity';

/** A claimed erasure: what a worker needs to ask the provider. */
export type DueErasure = Pick<ProviderErasureEntity, 'operationId' | 'sceneId' | 'generator' | 'providerJob' | 'attempts'>;

@Injectable()
export class ProviderErasuresRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * One erasure per operation of the scene that ran a job at a provider, due now, in the purge's
   * transaction (a second purge of the scene adds nothing).
   */
  async addForScene(tx: Tx, sceneId: string, now: Date): Promise<number> {
    const target = entityColumns(tx, ProviderErasureEntity, {
      only: ['operationId', 'organizationId', 'sceneId', 'generator', 'providerJob', 'status', 'attempts', 'nextAttemptAt', 'createdAt'],
    });
    const source = entityColumns(tx, OperationEntity, {
      alias: 'o',
      only: ['id', 'organizationId', 'sceneId', 'generator', 'providerJob'],
    });
    const { affected } = await rawQuery(
      tx,
      `INSERT INTO provider_erasures (${target.names.join(', ')})
       SELECT ${source.sql}, 'pending', 0, $2, $2 FROM operations o
        WHERE o.scene_id = $1 AND o.provider_job IS NOT NULL AND o.generator IS NOT NULL
       ON CONFLICT DO NOTHING`,
      [sceneId, now],
    );
    return affected;
  }

  /**
   * Takes up to `limit` due erasures, oldest first, and pushes each one's next attempt to
   * `leaseUntil`: committed at once, so no other worker takes them while this one asks the
   * provider, and a worker killed meanwhile leaves them to be taken again when the lease ends.
   */
  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<DueErasure[]> {
    const due = entityColumns(this.db, ProviderErasureEntity, {
      only: ['operationId', 'sceneId', 'generator', 'providerJob', 'attempts'],
    });
    return due.rows(
      this.db,
      `UPDATE provider_erasures SET next_attempt_at = $2 WHERE operation_id IN (
         SELECT operation_id FROM provider_erasures WHERE status = 'pending' AND next_attempt_at <= $1
          ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING ${due.sql}`,
      [now, leaseUntil, limit],
    );
  }

  /** Every object accounted for. */
  async done(operationId: string, objects: StoredProviderObject[], now: Date): Promise<void> {
    await rawQuery(
      this.db,
      `UPDATE provider_erasures SET status = 'done', objects = $2, attempts = attempts + 1, last_error = NULL, completed_at = $3
        WHERE operation_id = $1 AND status = 'pending'`,
      [operationId, JSON.stringify(objects), now],
    );
  }

  /** Not done: tried again at `nextAttemptAt`, the reason kept. */
  async retryAt(operationId: string, nextAttemptAt: Date, error: string): Promise<void> {
    await rawQuery(
      this.db,
      `UPDATE provider_erasures SET attempts = attempts + 1, next_attempt_at = $2, last_error = $3
        WHERE operation_id = $1 AND status = 'pending'`,
      [operationId, nextAttemptAt, error],
    );
  }

  /** Given up: recorded as failed, with the last reason. */
  async failed(operationId: string, error: string, now: Date): Promise<void> {
    await rawQuery(
      this.db,
      `UPDATE provider_erasures SET status = 'failed', attempts = attempts + 1, last_error = $2, completed_at = $3
        WHERE operation_id = $1 AND status = 'pending'`,
      [operationId, error, now],
    );
  }
}
