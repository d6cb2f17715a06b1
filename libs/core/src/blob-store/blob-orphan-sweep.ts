import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '../clock';
import { CoreJob } from '../idempotency/idempotency.jobs';
import { OnJob } from '../queue/job-handler.decorator';
import { BlobLedger } from './blob-ledger';
import { BlobStore } from './blob-store';
import { runInTransaction } from '../database/unit-of-work';

/**
 * How long a ledger record may stand before its object counts as an orphan. A transaction in
 * flight holds its record locked and is never swept whatever its age; the grace covers a put made
 * without a transaction (none today) and the instant before a transaction takes its record.
 */
export const BLOB_ORPHAN_GRACE_MS = 60 * 60_000;
const BATCH = 100;
const MAX_BATCHES = 50;

/**
 * `blobs.purge-orphans`: deletes the objects whose row never committed (BlobLedger), a batch per
 * transaction: the records are taken with SKIP LOCKED, their objects deleted, then the records
 * with the commit. A worker killed mid-batch leaves the records for the next run (deleting an
 * object twice is a no-op). With the PostgreSQL store nothing is ever recorded: its bytes are
 * written in the caller's transaction and roll back with it.
 */
@Injectable()
export class BlobOrphanSweep {
  private readonly logger = new Logger(BlobOrphanSweep.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly ledger: BlobLedger,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  @OnJob(CoreJob.BlobsPurgeOrphans)
  async purgeOrphans(): Promise<{ deleted: number }> {
    const olderThan = new Date(this.clock.now().getTime() - BLOB_ORPHAN_GRACE_MS);
    let deleted = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const keys = await runInTransaction(this.db, async (tx) => {
        const stale = await this.ledger.takeStale(tx, olderThan, BATCH);
        await this.blobs.delete(stale, tx);
        return stale;
      });
      deleted += keys.length;
      if (keys.length < BATCH) break;
    }
    if (deleted > 0) this.logger.warn(`deleted ${deleted} stored object(s) whose row never committed`);
    return { deleted };
  }
}
