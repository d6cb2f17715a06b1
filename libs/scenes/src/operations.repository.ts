import { poolQuery } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OperationError } from './operation-error';
import { OperationEntity, OperationStage, StoredProviderJob } from './operation.entity';

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
  'stage',
  'enqueued_at',
  'revert_to',
  'created_at',
  'updated_at',
  'completed_at',
];
const INSERT_OPERATION = `INSERT INTO operations (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;

const ALL_SELECT = [...COLUMNS, 'generator', 'provider_job', 'submitted_at', 'provider_cancelled_at'].map((c) => `o.${c}`).join(', ');

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
  stage: OperationEntity['stage'];
  enqueued_at: Date | null;
  revert_to: number | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  generator: string | null;
  provider_job: OperationEntity['providerJob'];
  submitted_at: Date | null;
  provider_cancelled_at: Date | null;
}

function toOperationEntity(r: OperationRow): OperationEntity {
  return {
    id: r.id,
    organizationId: r.organization_id,
    sceneId: r.scene_id,
    kind: r.kind,
    status: r.status,
    instruction: r.instruction,
    revertTo: r.revert_to,
    version: r.version,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    errorRetryable: r.error_retryable,
    progress: r.progress,
    stage: r.stage,
    generator: r.generator,
    providerJob: r.provider_job,
    submittedAt: r.submitted_at,
    providerCancelledAt: r.provider_cancelled_at,
    enqueuedAt: r.enqueued_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
  };
}

/**
 * What a partner's poll shows, and nothing more: the polling path reads these columns only (not
 * the provider's job, the instruction or the bookkeeping), which keeps the row it parses small.
 */
const VISIBLE_COLUMNS = [
  'id',
  'scene_id',
  'status',
  'version',
  'error_code',
  'error_message',
  'error_retryable',
  'progress',
  'stage',
  'created_at',
  'updated_at',
  'completed_at',
];
const VISIBLE_SELECT = VISIBLE_COLUMNS.map((c) => `o.${c}`).join(', ');

/** An operation as its organization sees it. */
export type VisibleOperation = Pick<
  OperationEntity,
  | 'id'
  | 'sceneId'
  | 'status'
  | 'version'
  | 'errorCode'
  | 'errorMessage'
  | 'errorRetryable'
  | 'progress'
  | 'stage'
  | 'createdAt'
  | 'updatedAt'
  | 'completedAt'
>;

interface VisibleRow {
  id: string;
  scene_id: string;
  status: OperationEntity['status'];
  version: number | null;
  error_code: string | null;
  error_message: string | null;
  error_retryable: boolean | null;
  progress: number | null;
  stage: OperationEntity['stage'];
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

function toVisibleOperation(r: VisibleRow): VisibleOperation {
  return {
    id: r.id,
    sceneId: r.scene_id,
    status: r.status,
    version: r.version,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    errorRetryable: r.error_retryable,
    progress: r.progress,
    stage: r.stage,
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
      op.stage,
      op.enqueuedAt,
      op.revertTo,
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
  async findVisible(organizationId: string, id: string): Promise<VisibleOperation | null> {
    const rows = await poolQuery<VisibleRow>(
      this.db,
      `SELECT ${VISIBLE_SELECT} FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL`,
      [id, organizationId],
    );
    return rows.length === 0 ? null : toVisibleOperation(rows[0]);
  }

  /** The scene an operation of the organization belongs to (fixed for its life), without a lock. */
  async sceneOf(tx: EntityManager, organizationId: string, id: string): Promise<string | null> {
    const rows: { scene_id: string }[] = await tx.query(`SELECT scene_id FROM operations WHERE id = $1 AND organization_id = $2`, [
      id,
      organizationId,
    ]);
    return rows[0]?.scene_id ?? null;
  }

  /** findVisible, locked for the caller's transaction (a cancel). */
  async lockVisible(
    tx: EntityManager,
    organizationId: string,
    id: string,
  ): Promise<(VisibleOperation & Pick<OperationEntity, 'kind'>) | null> {
    const rows: (VisibleRow & { kind: OperationEntity['kind'] })[] = await tx.query(
      `SELECT ${VISIBLE_SELECT}, o.kind FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL
        FOR UPDATE OF o`,
      [id, organizationId],
    );
    return rows.length === 0 ? null : { ...toVisibleOperation(rows[0]), kind: rows[0].kind };
  }

  /** The operation as its organization sees it, read in the caller's transaction (a webhook's payload); null once its scene is deleted. */
  async findVisibleIn(tx: EntityManager, id: string): Promise<(VisibleOperation & { organizationId: string }) | null> {
    const rows: (VisibleRow & { organization_id: string })[] = await tx.query(
      `SELECT ${VISIBLE_SELECT}, o.organization_id FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND s.deleted_at IS NULL`,
      [id],
    );
    return rows.length === 0 ? null : { ...toVisibleOperation(rows[0]), organizationId: rows[0].organization_id };
  }

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Runs `work` while this process holds the advisory lock `lock`; null without running it when
   * another replica holds it. The lock is transaction-scoped, held by one open transaction for the
   * duration and released by its end (or by a crash): a session-level lock would break behind
   * PgBouncer in transaction mode, where the lock and its unlock may reach different server
   * connections (docs/operations.md, "Kubernetes"). `work` uses other pooled connections.
   */
  async whileHoldingLock<T>(lock: number, work: () => Promise<T>): Promise<T | null> {
    return this.db.transaction(async (tx) => {
      const [{ locked }] = await tx.query<{ locked: boolean }[]>(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [lock]);
      return locked ? work() : null;
    });
  }

  /**
   * The whole operation. Plain SQL on the pool: a generation job reads its operation on every
   * poll, and TypeORM's query building cost more CPU (and garbage) than the query.
   */
  async findById(id: string): Promise<OperationEntity | null> {
    const rows = await poolQuery<OperationRow>(this.db, `SELECT ${ALL_SELECT} FROM operations o WHERE o.id = $1`, [id]);
    return rows.length === 0 ? null : toOperationEntity(rows[0]);
  }

  lockById(tx: EntityManager, id: string): Promise<OperationEntity | null> {
    return tx.getRepository(OperationEntity).createQueryBuilder('o').setLock('pessimistic_write').where('o.id = :id', { id }).getOne();
  }

  async markEnqueued(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`UPDATE operations SET enqueued_at = $2 WHERE id = ANY($1) AND status = 'processing'`, [ids, at]);
  }

  /** Only a processing operation moves; returns its organization, or null when someone else finished it first. */
  async markSucceeded(tx: EntityManager, id: string, version: number, at: Date): Promise<string | null> {
    const [rows]: [{ organization_id: string }[], number] = await tx.query(
      `UPDATE operations SET status = 'succeeded', version = $2, progress = 1, stage = NULL, updated_at = $3, completed_at = $3
        WHERE id = $1 AND status = 'processing' RETURNING organization_id`,
      [id, version, at],
    );
    return rows[0]?.organization_id ?? null;
  }

  async markFailed(tx: EntityManager, id: string, error: OperationError, at: Date): Promise<string | null> {
    const [rows]: [{ organization_id: string }[], number] = await tx.query(
      `UPDATE operations SET status = 'failed', error_code = $2, error_message = $3, error_retryable = $4,
              stage = NULL, updated_at = $5, completed_at = $5
        WHERE id = $1 AND status = 'processing' RETURNING organization_id`,
      [id, error.code, error.message, error.retryable, at],
    );
    return rows[0]?.organization_id ?? null;
  }

  /**
   * Stage and progress (0 to 1) of a processing operation; progress never goes down, whatever a
   * provider or a repeated job reports. Also counts as progress for the reconciler.
   */
  async setProgress(id: string, stage: OperationStage, progress: number, at: Date): Promise<void> {
    await this.db.query(
      `UPDATE operations SET stage = $2, progress = GREATEST(coalesce(progress, 0), $3), updated_at = $4,
              started_at = coalesce(started_at, CASE WHEN $2 <> 'queued' THEN $4::timestamptz END)
        WHERE id = $1 AND status = 'processing'`,
      [id, stage, progress, at],
    );
  }

  /**
   * Records the provider's job on a processing operation that has none yet: the first write after
   * a submit, before anything else, so a restarted worker resumes this job instead of submitting
   * again. False when the operation finished meanwhile (cancelled, its scene deleted) or another
   * run recorded a job first: the caller then cancels the job it just started.
   */
  async recordJob(id: string, generator: string, job: StoredProviderJob, at: Date): Promise<boolean> {
    const res: [unknown[], number] = await this.db.query(
      `UPDATE operations SET generator = $2, provider_job = $3, submitted_at = $4, stage = 'generating', updated_at = $4
        WHERE id = $1 AND status = 'processing' AND provider_job IS NULL`,
      [id, generator, JSON.stringify(job), at],
    );
    return res[1] === 1;
  }

  /** The provider's job moved on (another id or state, e.g. Meshy's refine after its preview). */
  async replaceJob(id: string, job: StoredProviderJob, at: Date): Promise<void> {
    await this.db.query(`UPDATE operations SET provider_job = $2, updated_at = $3 WHERE id = $1 AND status = 'processing'`, [
      id,
      JSON.stringify(job),
      at,
    ]);
  }

  /** Marks the provider job of a finished operation cancelled; false when it was already. */
  async markProviderCancelled(id: string, at: Date): Promise<boolean> {
    const res: [unknown[], number] = await this.db.query(
      `UPDATE operations SET provider_cancelled_at = $2 WHERE id = $1 AND provider_cancelled_at IS NULL`,
      [id, at],
    );
    return res[1] === 1;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.query(`UPDATE operations SET updated_at = $2 WHERE id = $1 AND status = 'processing'`, [id, at]);
  }

  /**
   * Admitted processing operations with no progress since `before`, oldest first: candidates for
   * the reconciler. Operations still waiting for their turn are admission's, not its.
   */
  async stale(before: Date, limit: number): Promise<Pick<OperationEntity, 'id' | 'kind' | 'enqueuedAt'>[]> {
    const rows: { id: string; kind: OperationEntity['kind']; enqueued_at: Date | null }[] = await this.db.query(
      `SELECT id, kind, enqueued_at FROM operations
        WHERE status = 'processing' AND admitted_at IS NOT NULL AND updated_at <= $1
        ORDER BY updated_at LIMIT $2`,
      [before, limit],
    );
    return rows.map((r) => ({ id: r.id, kind: r.kind, enqueuedAt: r.enqueued_at }));
  }

  /** A scene's edit turns, oldest first: the studio's edit history. */
  editsOfScene(sceneId: string): Promise<OperationEntity[]> {
    return this.db.getRepository(OperationEntity).find({ where: { sceneId, kind: 'scene.edit' }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Whether an edit turn (an edit or a revert) of the scene is still processing; read under the caller's scene lock. */
  async editInFlight(tx: EntityManager, sceneId: string): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `SELECT 1 FROM operations WHERE scene_id = $1 AND kind = 'scene.edit' AND status = 'processing' LIMIT 1`,
      [sceneId],
    );
    return rows.length > 0;
  }

  /**
   * A deleted scene's purge: its operations lose their edit instructions and are marked as of a
   * deleted scene (from its deletion time), which is what retention looks them up by.
   */
  async eraseOfDeletedScene(tx: EntityManager, sceneId: string, deletedAt: Date): Promise<void> {
    await tx.query(`UPDATE operations SET instruction = NULL, scene_deleted_at = $2 WHERE scene_id = $1`, [sceneId, deletedAt]);
  }

  /**
   * Deletes up to `limit` operations of deleted (and purged) scenes that ended before `before`,
   * oldest first, skipping rows other transactions hold; returns how many went.
   */
  async deleteOfDeletedScenesEndedBefore(before: Date, limit: number): Promise<number> {
    const [, affected]: [unknown[], number] = await this.db.query(
      `DELETE FROM operations WHERE id IN (
         SELECT id FROM operations WHERE scene_deleted_at IS NOT NULL AND completed_at < $1
          ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return affected;
  }

  async processingOfScene(tx: EntityManager, sceneId: string): Promise<string[]> {
    const rows: { id: string }[] = await tx.query(`SELECT id FROM operations WHERE scene_id = $1 AND status = 'processing'`, [sceneId]);
    return rows.map((r) => r.id);
  }
}
