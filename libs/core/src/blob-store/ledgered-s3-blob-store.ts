import { AppConfig } from '../config';
import { BlobLedger } from './blob-ledger';
import { S3BlobStore } from './s3-blob-store';
import { Tx } from '../database/unit-of-work';

/**
 * The bucket store with its writes recorded in the ledger (BlobLedger): the record committed
 * before the put, removed by the caller's transaction, so an object whose row never commits is
 * found and deleted by the orphan sweep. Reads and deletes are the bucket store's own.
 */
export class LedgeredS3BlobStore extends S3BlobStore {
  constructor(
    config: AppConfig,
    private readonly ledger: BlobLedger,
  ) {
    super(config);
  }

  override async put(key: string, bytes: Buffer, contentType: string, tx?: Tx): Promise<void> {
    await this.ledger.open(key);
    // Before the put: the caller's transaction holds the record from here to its end.
    if (tx) await this.ledger.settle(key, tx);
    await super.put(key, bytes, contentType);
    if (!tx) await this.ledger.settle(key);
  }
}
