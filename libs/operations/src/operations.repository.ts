import { entityColumns, poolQuery, rawInsert, rawQuery, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OperationError } from './operation-error';
import { OperationEntity, OperationStage, StoredProviderJob } from './operation.entity';
import { SceneEntity } from '@app/scenes';

/**
 * What a partner's poll shows, and nothing more: the polling path reads these columns only (not
 * the provider's job, the instruction or the bookkeeping), which keeps the row it parses small.
 */
const VISIBLE = [
  'id',
  'kind',
  'sceneId',
  'status',
  'version',
  'errorCode',
  'errorMessage',
  'errorRetryable',
  'progress',
  'stage',
  'createdAt',
  'updatedAt',
  'completedAt',
] as const satisfies readonly (keyof OperationEntity)[];

/**
 * An operation that just ended: whose it was, whether admission had let it on the queue, and
 * whether it still holds its slot (`cancelling`: its work goes on, and frees the slot when it ends).
 */
export interface EndedOperation {
  organizationId: string;
  admitted: boolean;
  holdsSlot: boolean;
}

/** An operation as its organization sees it, with its scene's externalRef (read in the same statement). */
export type VisibleOperation = Pick<OperationEntity, (typeof VISIBLE)[number]> & Pick<SceneEntity, 'externalRef'>;

/**
 * The operation's columns (alias `o`) and its scene's externalRef (alias `s`, joined by every
 * visible read), for one SELECT; each row becomes the operation with `externalRef` on it.
 */
function visibleColumns<K extends (typeof VISIBLE)[number] | 'organizationId'>(db: DataSource | Tx, only: readonly K[]) {
  const op = entityColumns(db, OperationEntity, { alias: 'o', only });
  const scene = entityColumns(db, SceneEntity, { alias: 's', only: ['externalRef'] });
  const toEntity = (row: Record<string, unknown>) => Object.assign(op.toEntity(row), scene.toEntity(row));
  return {
    sql: `${op.sql}, ${scene.sql}`,
    toEntity,
    rows: async (tx: Tx, sql: string, params: readonly unknown[]) => (await rawQuery(tx, sql, params)).rows.map(toEntity),
  };
}

@Injectable()
export class OperationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Plain SQL: on the creation path TypeORM's insert builder cost more CPU than the statement. */
  async insert(tx: Tx, op: OperationEntity): Promise<void> {
    await rawInsert(tx, OperationEntity, op);
  }

  /**
   * The organization's operation, unless its scene has been deleted (then it is gone too).
   * This is the polling path, called far more often than anything else: plain SQL on the pool,
   * because TypeORM's query builder, and then its query runner, spent more CPU on this one-row
   * query than node-postgres spent sending it and parsing the reply (docs/performance.md).
   */
  async findVisible(organizationId: string, id: string): Promise<VisibleOperation | null> {
    const visible = visibleColumns(this.db, VISIBLE);
    const rows = await poolQuery(
      this.db,
      `SELECT ${visible.sql} FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL`,
      [id, organizationId],
    );
    return rows.length === 0 ? null : visible.toEntity(rows[0]);
  }

  /** The scene an operation of the organization belongs to (fixed for its life), without a lock. */
  async sceneOf(tx: Tx, organizationId: string, id: string): Promise<string | null> {
    const scene = entityColumns(tx, OperationEntity, { only: ['sceneId'] });
    const [op] = await scene.rows(tx, `SELECT ${scene.sql} FROM operations WHERE id = $1 AND organization_id = $2`, [id, organizationId]);
    return op?.sceneId ?? null;
  }

  /** findVisible, locked for the caller's transaction (a cancel). */
  async lockVisible(tx: Tx, organizationId: string, id: string): Promise<VisibleOperation | null> {
    const columns = visibleColumns(tx, VISIBLE);
    const [op] = await columns.rows(
      tx,
      `SELECT ${columns.sql} FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL
        FOR UPDATE OF o`,
      [id, organizationId],
    );
    return op ?? null;
  }

  /** The operation as its organization sees it, read in the caller's transaction (a webhook's payload); null once its scene is deleted. */
  async findVisibleIn(tx: Tx, id: string): Promise<(VisibleOperation & Pick<OperationEntity, 'organizationId'>) | null> {
    const columns = visibleColumns(tx, [...VISIBLE, 'organizationId']);
    const [op] = await columns.rows(
      tx,
      `SELECT ${columns.sql} FROM operations o JOIN scenes s ON s.id = o.scene_id
        WHERE o.id = $1 AND s.deleted_at IS NULL`,
      [id],
    );
    return op ?? null;
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }

  /**
   * Runs `work` while this process holds the advisory lock `lock`; null without running it when
   * another replica holds it. The lock is transaction-scoped, held by one open transaction for the
   * duration and released by its end (or by a crash): a session-level lock would break behind
   * PgBouncer in transaction mode, where the lock and its unlock may reach different server
   * connections (docs/operations.md, "Kubernetes"). `work` uses other pooled connections.
   */
  async whileHoldingLock<T>(lock: number, work: () => Promise<T>): Promise<T | null> {
    return runInTransaction(this.db, async (tx) => {
      const { rows } = await rawQuery<{ locked: boolean }>(tx, `SELECT pg_try_advisory_xact_lock($1) AS locked`, [lock]);
      return rows[0].locked ? work() : null;
    });
  }

  /**
   * The whole operation. Plain SQL on the pool: a generation job reads its operation on every
   * poll, and TypeORM's query building cost more CPU (and garbage) than the query.
   */
  async findById(id: string): Promise<OperationEntity | null> {
    const all = entityColumns(this.db, OperationEntity, { alias: 'o' });
    const rows = await poolQuery(this.db, `SELECT ${all.sql} FROM operations o WHERE o.id = $1`, [id]);
    return rows.length === 0 ? null : all.toEntity(rows[0]);
  }

  async lockById(tx: Tx, id: string): Promise<OperationEntity | null> {
    const all = entityColumns(tx, OperationEntity);
    const [op] = await all.rows(tx, `SELECT ${all.sql} FROM operations WHERE id = $1 FOR UPDATE`, [id]);
    return op ?? null;
  }

  async markEnqueued(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await rawQuery(this.db, `UPDATE operations SET enqueued_at = $2 WHERE id = ANY($1) AND status = 'processing'`, [ids, at]);
  }

  /**
   * Only a processing operation moves; returns its organization and whether its turn had come
   * (what its end takes off the organization's backlog), or null when someone else finished it first.
   */
  async markSucceeded(tx: Tx, id: string, version: number, at: Date): Promise<EndedOperation | null> {
    const ended = entityColumns(tx, OperationEntity, { only: ['organizationId', 'admittedAt', 'stage'] });
    const [op] = await ended.rows(
      tx,
      `UPDATE operations SET status = 'succeeded', version = $2, progress = 1, stage = NULL, updated_at = $3, completed_at = $3
        WHERE id = $1 AND status = 'processing' RETURNING ${ended.sql}`,
      [id, version, at],
    );
    return op ? { organizationId: op.organizationId, admitted: op.admittedAt != null, holdsSlot: false } : null;
  }

  /**
   * `workMayGoOn`: the end does not stop the work (a cancel, a deletion): an operation a worker has
   * started keeps its slot (`cancelling`) until the worker sees that work end (releaseSlot).
   */
  async markFailed(tx: Tx, id: string, error: OperationError, at: Date, workMayGoOn = false): Promise<EndedOperation | null> {
    const ended = entityColumns(tx, OperationEntity, { only: ['organizationId', 'admittedAt', 'stage'] });
    const [op] = await ended.rows(
      tx,
      `UPDATE operations SET status = 'failed', error_code = $2, error_message = $3, error_retryable = $4,
              stage = CASE WHEN $6 AND admitted_at IS NOT NULL AND started_at IS NOT NULL THEN 'cancelling' END,
              updated_at = $5, completed_at = $5
        WHERE id = $1 AND status = 'processing' RETURNING ${ended.sql}`,
      [id, error.code, error.message, error.retryable, at, workMayGoOn],
    );
    return op ? { organizationId: op.organizationId, admitted: op.admittedAt != null, holdsSlot: op.stage === 'cancelling' } : null;
  }

  /** The work of a `cancelling` operation ended: it stops holding its slot. Its organization, or null when it held none. */
  async releaseSlot(tx: Tx, id: string): Promise<string | null> {
    const organization = entityColumns(tx, OperationEntity, { only: ['organizationId'] });
    const [op] = await organization.rows(
      tx,
      // updated_at stays the end's: what its partner sees of the operation does not change.
      `UPDATE operations SET stage = NULL WHERE id = $1 AND stage = 'cancelling' RETURNING ${organization.sql}`,
      [id],
    );
    return op?.organizationId ?? null;
  }

  /**
   * Stage and progress (0 to 1) of a processing operation; progress never goes down, whatever a
   * provider or a repeated job reports. Also counts as progress for the reconciler.
   */
  async setProgress(id: string, stage: OperationStage, progress: number, at: Date): Promise<boolean> {
    const { affected } = await rawQuery(
      this.db,
      `UPDATE operations SET stage = $2, progress = GREATEST(coalesce(progress, 0), $3), updated_at = $4,
              started_at = coalesce(started_at, CASE WHEN $2 <> 'queued' THEN $4::timestamptz END)
        WHERE id = $1 AND status = 'processing'`,
      [id, stage, progress, at],
    );
    return affected === 1;
  }

  /**
   * Records the provider's job on a processing operation that has none yet: the first write after
   * a submit, before anything else, so a restarted worker resumes this job instead of submitting
   * again; also on an operation cancelled since its start (`cancelling`), whose job is then
   * followed to its end. False when the operation finished otherwise or another run recorded a job
   * first: the caller then cancels the job it just started.
   */
  async recordJob(id: string, generator: string, job: StoredProviderJob, at: Date): Promise<boolean> {
    const { affected } = await rawQuery(
      this.db,
      `UPDATE operations SET generator = $2, provider_job = $3, submitted_at = $4, updated_at = $4,
              stage = CASE WHEN status = 'processing' THEN 'generating' ELSE stage END
        WHERE id = $1 AND (status = 'processing' OR stage = 'cancelling') AND provider_job IS NULL`,
      [id, generator, JSON.stringify(job), at],
    );
    return affected === 1;
  }

  /** The provider's job moved on (another id or state, e.g. Meshy's refine after its preview). */
  async replaceJob(id: string, job: StoredProviderJob, at: Date): Promise<void> {
    await rawQuery(this.db, `UPDATE operations SET provider_job = $2, updated_at = $3 WHERE id = $1 AND status = 'processing'`, [
      id,
      JSON.stringify(job),
      at,
    ]);
  }

  /** Marks the provider job of a finished operation cancelled; false when it was already. */
  async markProviderCancelled(id: string, at: Date): Promise<boolean> {
    const { affected } = await rawQuery(
      this.db,
      `UPDATE operations SET provider_cancelled_at = $2 WHERE id = $1 AND provider_cancelled_at IS NULL`,
      [id, at],
    );
    return affected === 1;
  }

  async touch(id: string, at: Date): Promise<void> {
    await rawQuery(this.db, `UPDATE operations SET updated_at = $2 WHERE id = $1 AND status = 'processing'`, [id, at]);
  }

  /**
   * Admitted processing operations with no progress since `before`, oldest first, and every ended
   * one whose work is still followed (`cancelling`: at most its organization's slots; their
   * `updated_at` stays their end's): candidates for the reconciler. Operations still waiting for
   * their turn are admission's, not its.
   */
  stale(before: Date, limit: number): Promise<Pick<OperationEntity, 'id' | 'kind' | 'enqueuedAt'>[]> {
    const candidate = entityColumns(this.db, OperationEntity, { only: ['id', 'kind', 'enqueuedAt'] });
    return candidate.rows(
      this.db,
      `SELECT ${candidate.sql} FROM operations
        WHERE (status = 'processing' AND admitted_at IS NOT NULL AND updated_at <= $1) OR stage = 'cancelling'
        ORDER BY updated_at LIMIT $2`,
      [before, limit],
    );
  }

  /** A scene's edit turns, oldest first: the studio's edit history. */
  editsOfScene(sceneId: string): Promise<OperationEntity[]> {
    const all = entityColumns(this.db, OperationEntity);
    return all.rows(this.db, `SELECT ${all.sql} FROM operations WHERE scene_id = $1 AND kind = 'scene.edit' ORDER BY created_at, id`, [
      sceneId,
    ]);
  }

  /** Whether an edit turn (an edit or a revert) of the scene is still processing; read under the caller's scene lock. */
  async editInFlight(tx: Tx, sceneId: string): Promise<boolean> {
    const { rows } = await rawQuery<{ found: boolean }>(
      tx,
      `SELECT EXISTS (SELECT 1 FROM operations WHERE scene_id = $1 AND kind = 'scene.edit' AND status = 'processing') AS found`,
      [sceneId],
    );
    return rows[0].found;
  }

  /**
   * A deleted scene's purge: its operations lose their edit instructions and are marked as of a
   * deleted scene (from its deletion time), which is what retention looks them up by.
   */
  async eraseOfDeletedScene(tx: Tx, sceneId: string, deletedAt: Date): Promise<void> {
    await rawQuery(tx, `UPDATE operations SET instruction = NULL, scene_deleted_at = $2 WHERE scene_id = $1`, [sceneId, deletedAt]);
  }

  /**
   * Deletes up to `limit` operations of deleted (and purged) scenes that ended before `before`,
   * oldest first, skipping rows other transactions hold; returns how many went. One whose work
   * still holds its slot (`cancelling`) stays until that work ends (releaseSlot): erased, its
   * slot would be counted as held for good.
   */
  async deleteOfDeletedScenesEndedBefore(before: Date, limit: number): Promise<number> {
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM operations WHERE id IN (
         SELECT id FROM operations WHERE scene_deleted_at IS NOT NULL AND completed_at < $1 AND stage IS NULL
          ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return affected;
  }

  async processingOfScene(tx: Tx, sceneId: string): Promise<string[]> {
    const id = entityColumns(tx, OperationEntity, { only: ['id'] });
    const ops = await id.rows(tx, `SELECT ${id.sql} FROM operations WHERE scene_id = $1 AND status = 'processing'`, [sceneId]);
    return ops.map((op) => op.id);
  }
}
