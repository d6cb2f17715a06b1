import type * as S3 from '@aws-sdk/client-s3';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Readable } from 'node:stream';
import { AppConfig } from '../config';
import { BlobStore, BlobStream } from './blob-store';

/**
 * The AWS SDK, loaded when an S3 store is made: a process on the default table store (and every
 * CLI call) never loads it.
 */
function s3Sdk(): typeof S3 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  return require('@aws-sdk/client-s3') as typeof S3;
}

/** Deletes sent at once: a scene's files or a sweep's batch, without opening hundreds of sockets. */
const DELETE_CONCURRENCY = 8;

/**
 * `BLOB_STORE=s3`: bytes in a bucket of any S3-compatible store (AWS S3, MinIO, Cloudflare R2),
 * through the AWS SDK v3. Rows stay in PostgreSQL; only the bytes move. Reads that only pass the
 * bytes on (`open`) stream them from the bucket to the client; the studio serves a scene's files
 * that way (docs/operations.md, "Object storage").
 *
 * Checksums are computed only where the S3 API requires them: since early 2025 the SDK sends
 * CRC32 checksums by default, which several S3-compatible stores reject or ignore.
 */
@Injectable()
export class S3BlobStore extends BlobStore implements OnApplicationShutdown {
  private readonly sdk = s3Sdk();
  private readonly client: S3.S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(config: AppConfig) {
    super();
    const s3 = config.blobStore.s3;
    if (!s3.bucket) throw new Error('S3_BUCKET must be set when BLOB_STORE is "s3"');
    this.bucket = s3.bucket;
    this.prefix = s3.keyPrefix;
    this.client = new this.sdk.S3Client({
      region: s3.region,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      forcePathStyle: s3.forcePathStyle,
      ...(s3.credentials ? { credentials: s3.credentials } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  private key(key: string): string {
    return `${this.prefix}${key}`;
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new this.sdk.PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.length,
      }),
    );
  }

  async get(key: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    const opened = await this.open(key);
    if (!opened) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    return { bytes: Buffer.concat(chunks), contentType: opened.contentType };
  }

  async open(key: string): Promise<BlobStream | null> {
    try {
      const res = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
      return {
        stream: res.Body as Readable,
        contentType: res.ContentType ?? 'application/octet-stream',
        sizeBytes: res.ContentLength ?? 0,
      };
    } catch (e) {
      if (e instanceof this.sdk.NoSuchKey || (e instanceof this.sdk.S3ServiceException && e.$metadata.httpStatusCode === 404)) return null;
      throw e;
    }
  }

  /** Deleting a missing object succeeds in S3, so the count is of keys asked for, not found. */
  async delete(keys: string[]): Promise<number> {
    const queue = [...keys];
    const worker = async () => {
      for (let k = queue.shift(); k !== undefined; k = queue.shift()) {
        await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(k) }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, keys.length) }, worker));
    return keys.length;
  }

  onApplicationShutdown(): void {
    this.client.destroy();
  }
}
