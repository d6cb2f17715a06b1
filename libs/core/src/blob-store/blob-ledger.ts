import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { entityColumns, rawInsert, rawQuery } from '../database/raw-sql';
import { PendingBlobEntity } from './pending-blob.entity';
import { Tx } from '../database/unit-of-work';

/**
 * The ledger of objects written outside the database (`pending_blobs`), so that no stored object
 * outlives a transaction that rolled back. A bucket cannot take part in our transactions: a put
 * followed by a rollback (or by a process killed before its commit) would leave an object that no
 * row names and nothing ever removes. So a write goes:
 *
 * 1. `open`: the key is recorded and committed on its own, before the put;
 * 2. `settle(tx)`: the caller's transaction deletes the record first, which also locks it until
 *    that transaction ends — so the record disappears exactly when the row naming the object
 *    commits, and comes back if it rolls back (or its connection dies);
 * 3. the put.
 *
 * The sweep (`stale`) takes records older than the grace period with SKIP LOCKED: a transaction
 * still in flight holds its record locked and is never swept from under it, however long it runs.
 * The grace only covers the instant between 1 and 2, and puts made without a transaction.
 */
@Injectable()
export class BlobLedger {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly clock: Clock,
  ) {}

  /** Records `key` as being written, committed at once (on the pool, outside any transaction). */
  async open(key: string): Promise<void> {
    await rawInsert(
      this.db,
      PendingBlobEntity,
      { key, createdAt: this.clock.now() },
      `ON CONFLICT (key) DO UPDATE SET created_at = EXCLUDED.created_at`,
    );
  }

  /** The object is named by a row committed in `tx` (or, without one, now). */
  async settle(key: string, tx?: Tx): Promise<void> {
    await rawQuery(tx ?? this.db, `DELETE FROM pending_blobs WHERE key = $1`, [key]);
  }

  /**
   * In `tx`: up to `limit` records older than `olderThan` that no transaction holds, locked, and
   * deleted when `tx` commits. The caller deletes their objects before it commits.
   */
  async takeStale(tx: Tx, olderThan: Date, limit: number): Promise<string[]> {
    const key = entityColumns(tx, PendingBlobEntity, { only: ['key'] });
    const taken = await key.rows(
      tx,
      `DELETE FROM pending_blobs WHERE key IN (
         SELECT key FROM pending_blobs WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${key.sql}`,
      [olderThan, limit],
    );
    return taken.map((r) => r.key);
  }
}
