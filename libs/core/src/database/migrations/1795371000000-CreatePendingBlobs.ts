import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `pending_blobs` (core, BlobLedger): objects being written to a bucket (BLOB_STORE=s3), recorded
 * and committed before the put and removed by the transaction that commits the row naming the
 * object, so `blobs.purge-orphans` can delete an object whose row never committed. Objects
 * orphaned before this release are not known to it (docs/operations.md, "Object storage").
 *
 * Compatible with the release before: a new table that the old code never reads (an old api or
 * worker still running during the upgrade writes no records, as before).
 */
export class CreatePendingBlobs1795371000000 implements MigrationInterface {
  name = 'CreatePendingBlobs1795371000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE pending_blobs (key text PRIMARY KEY, created_at timestamptz NOT NULL)`);
    await q.query(`CREATE INDEX pending_blobs_created_idx ON pending_blobs (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE pending_blobs`);
  }
}
