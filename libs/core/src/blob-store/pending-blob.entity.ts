import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An object being written to a store outside the database (BLOB_STORE=s3): recorded, and
 * committed, before the object is put, and deleted in the transaction that commits the row
 * naming the object. A row older than the grace period that no transaction holds is an object
 * whose row never committed (a rolled-back upload, a worker killed between the put and the
 * commit): the orphan sweep deletes the object and the row (BlobLedger).
 */
@Entity('pending_blobs')
export class PendingBlobEntity {
  @PrimaryColumn('text')
  key: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
