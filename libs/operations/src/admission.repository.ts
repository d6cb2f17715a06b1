import { entityColumns, rawQuery, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AdmissionTurnEntity } from './admission-turn.entity';
import { OperationEntity } from './operation.entity';

/** An organization with operations waiting for their turn, as an admission round sees it. */
export interface WaitingOrganization {
  organizationId: string;
  waiting: number;
  /** Its admitted operations still processing (queued on BullMQ, running, or at the provider). */
  running: number;
  /** When it was last served (a sequence number; null: never): the longest unserved goes first. */
  lastTurn: number | null;
  /**
   * Its oldest waiting operation's creation: the tie-break between organizations never served
   * (null when that operation left between the count and this read: it sorts last).
   */
  oldestAt: Date | null;
}

export type WaitingOperation = Pick<OperationEntity, 'id' | 'organizationId' | 'kind' | 'revertTo'>;

/** Any fixed number: the advisory lock that lets one worker replica admit at a time. */
const ADMISSION_LOCK = 731_903_119;

/**
 * The admission's reads and writes on `operations` and `admission_turns` (docs/architecture.md,
 * "Fair share"): when each waiting organization was last served, its oldest waiting operations,
 * and the admission itself (how many wait and run per organization is tenancy's count,
 * GenerationBacklogs). A round runs in one transaction holding the admission
 * lock, on one connection: a round never waits for a second connection while it holds one.
 */
@Injectable()
export class AdmissionRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Runs `work` in a transaction holding the admission lock; null, without running it, when another replica holds it. */
  inTurn<T>(work: (tx: Tx) => Promise<T>): Promise<T | null> {
    return runInTransaction(this.db, async (tx) => {
      const { rows } = await rawQuery<{ locked: boolean }>(tx, `SELECT pg_try_advisory_xact_lock($1) AS locked`, [ADMISSION_LOCK]);
      return rows[0].locked ? work(tx) : null;
    });
  }

  /** Admitted operations that no worker has started yet: what sits in BullMQ's queue. */
  async admittedNotStarted(tx: Tx): Promise<number> {
    const { rows } = await rawQuery<{ n: number }>(
      tx,
      `SELECT count(*)::int AS n FROM operations WHERE status = 'processing' AND admitted_at IS NOT NULL AND stage = 'queued'`,
    );
    return rows[0].n;
  }

  /**
   * For each organization named (those with work waiting): when it was last served, and when its
   * oldest waiting operation arrived (the tie-break between organizations never served). One
   * index probe each (`operations_waiting_idx`, the first entry of the organization's range), so
   * the round costs the same however many operations wait behind that entry.
   */
  async turnsOf(tx: Tx, organizationIds: string[]): Promise<Map<string, { lastTurn: number | null; oldestAt: Date | null }>> {
    if (organizationIds.length === 0) return new Map();
    // Per organization, the query's own names, not an entity's columns.
    const { rows } = await rawQuery<{ organization_id: string; last_turn: string | null; oldest_at: Date | null }>(
      tx,
      `SELECT o.organization_id, t.last_turn, w.created_at AS oldest_at
         FROM (SELECT unnest($1::text[]) AS organization_id) o
         LEFT JOIN admission_turns t ON t.organization_id = o.organization_id
         LEFT JOIN LATERAL (
           SELECT created_at FROM operations
            WHERE organization_id = o.organization_id AND status = 'processing' AND admitted_at IS NULL
            ORDER BY created_at, id LIMIT 1) w ON true`,
      [organizationIds],
    );
    return new Map(
      rows.map((r) => [r.organization_id, { lastTurn: r.last_turn === null ? null : Number(r.last_turn), oldestAt: r.oldest_at }]),
    );
  }

  /** An organization's `count` oldest waiting operations, in arrival order. */
  oldestWaiting(tx: Tx, organizationId: string, count: number): Promise<WaitingOperation[]> {
    const waiting = entityColumns(tx, OperationEntity, { only: ['id', 'organizationId', 'kind', 'revertTo'] });
    return waiting.rows(
      tx,
      `SELECT ${waiting.sql} FROM operations
        WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NULL
        ORDER BY created_at, id LIMIT $2`,
      [organizationId, count],
    );
  }

  /**
   * Admits the operations in `ids` that still wait (one cancelled meanwhile stays as it is) and
   * records each organization's turn in the order given, so the last served is the last in line
   * next time. The admission's clock starts the reconciler's grace: `updated_at` moves too.
   */
  async admit(tx: Tx, ordered: WaitingOperation[], at: Date): Promise<string[]> {
    if (ordered.length === 0) return [];
    {
      const id = entityColumns(tx, OperationEntity, { only: ['id'] });
      const rows = await id.rows(
        tx,
        `UPDATE operations SET admitted_at = $2, updated_at = $2
          WHERE id = ANY($1) AND status = 'processing' AND admitted_at IS NULL RETURNING ${id.sql}`,
        [ordered.map((o) => o.id), at],
      );
      const admitted = new Set(rows.map((r) => r.id));
      const turn = entityColumns(tx, AdmissionTurnEntity, { only: ['organizationId', 'lastTurn'] });
      for (const op of ordered) {
        if (!admitted.has(op.id)) continue;
        await rawQuery(
          tx,
          `INSERT INTO admission_turns (${turn.sql}) VALUES ($1, nextval('admission_turn_seq'))
           ON CONFLICT (organization_id) DO UPDATE SET last_turn = EXCLUDED.last_turn`,
          [op.organizationId],
        );
      }
      return ordered.filter((o) => admitted.has(o.id)).map((o) => o.id);
    }
  }
}
