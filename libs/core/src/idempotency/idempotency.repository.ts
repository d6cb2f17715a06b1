import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { entityColumns, rawInsert, rawQuery } from '../database/raw-sql';
import { IdempotencyKeyEntity } from './idempotency-key.entity';

/** A stored key as a replay needs it. */
export type StoredIdempotencyKey = Pick<IdempotencyKeyEntity, 'fingerprint' | 'result' | 'expiresAt'>;

/**
 * The `idempotency_keys` table. Plain SQL in the creation transaction (the find and the insert
 * run on every POST /v1/scenes, where TypeORM's builders cost more CPU than the statements).
 */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Takes the transaction-scoped advisory lock of (organization, key) without waiting; false when
   * another transaction holds it.
   */
  async tryLock(tx: EntityManager, organizationId: string, key: string): Promise<boolean> {
    const { rows } = await rawQuery<{ locked: boolean }>(tx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked`, [
      `${organizationId}:${key}`,
    ]);
    return rows[0].locked;
  }

  async find(tx: EntityManager, organizationId: string, key: string): Promise<StoredIdempotencyKey | null> {
    const stored = entityColumns(tx, IdempotencyKeyEntity, { only: ['fingerprint', 'result', 'expiresAt'] });
    const [found] = await stored.rows(tx, `SELECT ${stored.sql} FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [
      organizationId,
      key,
    ]);
    return found ?? null;
  }

  async delete(tx: EntityManager, organizationId: string, key: string): Promise<void> {
    await tx.getRepository(IdempotencyKeyEntity).delete({ organizationId, key });
  }

  async insert(tx: EntityManager, stored: IdempotencyKeyEntity): Promise<void> {
    await rawInsert(tx, IdempotencyKeyEntity, stored);
  }

  /** Deletes up to `limit` keys expired at `now`, skipping rows other transactions hold; returns how many. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    );
    return affected;
  }
}
