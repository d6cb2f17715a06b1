import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/** A stored idempotency record. */
export interface IdempotencyRecord {
  fingerprint: string;
  result: object;
  expiresAt: Date;
}

interface IdempotencyRow {
  fingerprint: string;
  result: object;
  expires_at: Date;
}

/** The `idempotency_keys` table. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Takes the transaction-scoped advisory lock of (organization, key) without waiting; false when
   * another transaction holds it.
   */
  async tryLock(tx: EntityManager, organizationId: string, key: string): Promise<boolean> {
    const [{ locked }]: { locked: boolean }[] = await tx.query(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked`, [
      `${organizationId}:${key}`,
    ]);
    return locked;
  }

  async find(tx: EntityManager, organizationId: string, key: string): Promise<IdempotencyRecord | null> {
    const rows: IdempotencyRow[] = await tx.query(
      `SELECT fingerprint, result, expires_at FROM idempotency_keys WHERE organization_id = $1 AND key = $2`,
      [organizationId, key],
    );
    return rows.length === 0 ? null : { fingerprint: rows[0].fingerprint, result: rows[0].result, expiresAt: rows[0].expires_at };
  }

  async delete(tx: EntityManager, organizationId: string, key: string): Promise<void> {
    await tx.query(`DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2`, [organizationId, key]);
  }

  async insert(tx: EntityManager, record: IdempotencyRecord & { organizationId: string; key: string; createdAt: Date }): Promise<void> {
    await tx.query(
      `INSERT INTO idempotency_keys (organization_id, key, fingerprint, result, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [record.organizationId, record.key, record.fingerprint, JSON.stringify(record.result), record.createdAt, record.expiresAt],
    );
  }

  /** Deletes up to `limit` records expired at `now`, skipping rows other transactions hold; returns how many. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    const res: [unknown[], number] = await this.db.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    );
    return res[1];
  }
}
