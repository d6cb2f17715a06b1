import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { entityColumns, rawInsert, rawQuery } from '../database/raw-sql';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { Tx } from '../database/unit-of-work';

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
  async tryLock(tx: Tx, organizationId: string, key: string): Promise<boolean> {
    const { rows } = await rawQuery<{ locked: boolean }>(tx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked`, [
      `${organizationId}:${key}`,
    ]);
    return rows[0].locked;
  }

  /**
   * For an answer known before its work runs: takes the lock and, holding it, stores `record`
   * unless the key holds an unexpired record, in one statement. `claimed`: the record is stored
   * (it commits, or vanishes, with the caller's transaction); otherwise `stored` is what the key
   * holds (null in the instant a concurrent request's record commits between this statement's
   * start and its insert: the caller reads it again).
   */
  async claim(tx: Tx, record: IdempotencyKeyEntity): Promise<{ locked: boolean; claimed: boolean; stored: StoredIdempotencyKey | null }> {
    const stored = entityColumns(tx, IdempotencyKeyEntity, { alias: 'k', only: ['fingerprint', 'result', 'expiresAt'] });
    const all = entityColumns(tx, IdempotencyKeyEntity, {
      only: ['organizationId', 'key', 'fingerprint', 'result', 'createdAt', 'expiresAt'],
    });
    const { rows } = await rawQuery(
      tx,
      `WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked),
       claimed AS (
         INSERT INTO idempotency_keys AS x (${all.names.join(', ')}) SELECT $2, $3, $4, $5::jsonb, $6, $7 FROM lock WHERE lock.locked
         ON CONFLICT (organization_id, key) DO UPDATE
            SET fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE x.expires_at <= EXCLUDED.created_at
         RETURNING 1)
       SELECT lock.locked, (SELECT count(*) FROM claimed)::int AS claimed, ${stored.sql} FROM lock
         LEFT JOIN idempotency_keys k ON k.organization_id = $2 AND k.key = $3 AND k.expires_at > $6`,
      [
        `${record.organizationId}:${record.key}`,
        record.organizationId,
        record.key,
        record.fingerprint,
        JSON.stringify(record.result),
        record.createdAt,
        record.expiresAt,
      ],
    );
    const row = rows[0];
    return { locked: row.locked === true, claimed: row.claimed === 1, stored: row.fingerprint == null ? null : stored.toEntity(row) };
  }

  async find(tx: Tx, organizationId: string, key: string): Promise<StoredIdempotencyKey | null> {
    const stored = entityColumns(tx, IdempotencyKeyEntity, { only: ['fingerprint', 'result', 'expiresAt'] });
    const [found] = await stored.rows(tx, `SELECT ${stored.sql} FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [
      organizationId,
      key,
    ]);
    return found ?? null;
  }

  async delete(tx: Tx, organizationId: string, key: string): Promise<void> {
    await rawQuery(tx, `DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [organizationId, key]);
  }

  async insert(tx: Tx, stored: IdempotencyKeyEntity): Promise<void> {
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
