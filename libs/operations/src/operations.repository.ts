import { poolQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OperationError } from './operation-error';
import { OperationEntity } from './operation.entity';

/** Every column, in the order the insert binds them. */
const COLUMNS = [
  'id',
  'organization_id',
  'scene_id',
  'kind',
  'status',
  'instruction',
  'version',
  'error_code',
  'error_message',
  'error_retryable',
  'progress',
  'enqueued_at',
  'created_at',
  'updated_at',
  'completed_at',
];
const OPERATION_COLUMNS = COLUMNS.map((c) => `o.${c}`).join(', ');
const INSERT_OPERATION = `INSERT INTO operations (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

interface OperationRow {
  id: string;
  organization_id: string;
  scene_id: string;
  kind: OperationEntity['kind'];
  status: OperationEntity['status'];
  instruction: string | null;
  version: number | null;
  error_code: string | null;
  error_message: string | null;
  error_retryable: boolean | null;
  progress: number | null;
  enqueued_at: Date | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

function toOperationEntity(r: OperationRow): OperationEntity {
  return {
    id: r.id,
    organizationId: r.organization_id,
    sceneId: r.scene_id,
    kind: r.kind,
    status: r.status,
    instruction: r.instruction,
    version: r.version,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    errorRetryable: r.error_retryable,
    progress: r.progress,
    enqueuedAt: r.enqueued_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

@Injectable()
export class OperationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Plain SQL: on the creation path TypeORM's insert builder cost more CPU than the statement. */
  async insert(tx: EntityManager, op: OperationEntity): Promise<void> {
    await tx.query(INSERT_OPERATION, [
      op.id,
      op.organizationId,
      op.sceneId,
      op.kind,
      op.status,
      op.instruction,
      op.version,
      op.errorCode,
      op.errorMessage,
      op.errorRetryable,
      op.progress,
      op.enqueuedAt,
      op.createdAt,
      op.updatedAt,
      op.completedAt,
    ]);
  }

  /**
   * The organization's operation, unless its scene has been deleted (then it is gone too).
   * This is the polling path, called far more often than anything else: plain SQL on the pool,
   * because TypeORM's query builder, and then its query runner, spent more CPU on this one-row
   * query than node-postgres spent sending it and parsing the reply (docs/performance.md).
   */
  async findVisible(organizationId: string, id: string): Promise<OperationEntity | null> {
    const rows = await poolQuery<OperationRow>(
      this.db,
      `SELECT ${OPERATION_COLUMNS} FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL`,
      [id, organizationId],
    );
    return rows.length === 0 ? null : toOperationEntity(rows[0]);
  }

  findById(id: string, tx?: EntityManager): Promise<OperationEntity | null> {
    return (tx ?? this.db.manager).getRepository(OperationEntity).findOneBy({ id });
  }

  lockById(tx: EntityManager, id: string): Promise<OperationEntity | null> {
    return tx.getRepository(OperationEntity).createQueryBuilder('o').setLock('pessimistic_write').where('o.id = :id', { id }).getOne();
  }

  async markEnqueued(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`UPDATE operations SET enqueued_at = $2 WHERE id = ANY($1) AND status = 'processing'`, [ids, at]);
  }

  /** Only a processing operation moves; returns false when someone else finished it first. */
  async markSucceeded(tx: EntityManager, id: string, version: number, at: Date): Promise<boolean> {
    const res: [unknown[], number] = await tx.query(
      `UPDATE operations SET status = 'succeeded', version = $2, progress = 1, updated_at = $3, completed_at = $3
        WHERE id = $1 AND status = 'processing'`,
      [id, version, at],
    );
    return res[1] === 1;
  }

  async markFailed(tx: EntityManager, id: string, error: OperationError, at: Date): Promise<boolean> {
    const res: [unknown[], number] = await tx.query(
      `UPDATE operations SET status = 'failed', error_code = $2, error_message = $3, error_retryable = $4,
              updated_at = $5, completed_at = $5
        WHERE id = $1 AND status = 'processing'`,
      [id, error.code, error.message, error.retryable, at],
    );
    return res[1] === 1;
  }

  /** Progress of a processing operation (0 to 1); also counts as progress for the reconciler. */
  async setProgress(id: string, progress: number, at: Date): Promise<void> {
    await this.db.query(`UPDATE operations SET progress = $2, updated_at = $3 WHERE id = $1 AND status = 'processing'`, [id, progress, at]);
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE operations SET updated_at = $2 WHERE id = $1 AND status = 'processing'`, [id, at]);
  }

  /** Processing operations with no progress since `before`, oldest first: candidates for the reconciler. */
  async stale(before: Date, limit: number): Promise<Pick<OperationEntity, 'id' | 'kind' | 'enqueuedAt'>[]> {
    const rows: { id: string; kind: OperationEntity['kind']; enqueued_at: Date | null }[] = await this.db.query(
      `SELECT id, kind, enqueued_at FROM operations
        WHERE status = 'processing' AND updated_at <= $1
        ORDER BY updated_at LIMIT $2`,
      [before, limit],
    );
    return rows.map((r) => ({ id: r.id, kind: r.kind, enqueuedAt: r.enqueued_at }));
  }

  /** A scene's edit turns, oldest first: the studio's edit history. */
  editsOfScene(sceneId: string): Promise<OperationEntity[]> {
    return this.db.getRepository(OperationEntity).find({ where: { sceneId, kind: 'scene.edit' }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async processingOfScene(tx: EntityManager, sceneId: string): Promise<string[]> {
    const rows: { id: string }[] = await tx.query(`SELECT id FROM operations WHERE scene_id = $1 AND status = 'processing'`, [sceneId]);
    return rows.map((r) => r.id);
  }
}
