import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Readable } from 'node:stream';
import { poolQuery } from '../database/pool-query';
import { entityColumns, rawInsert, rawQuery } from '../database/raw-sql';
import { BlobEntity } from './blob.entity';
import { BlobStore, BlobStream } from './blob-store';
import { Tx } from '../database/unit-of-work';

/**
 * Bytes of a blob read per query when streaming: a chunk in flight and one buffered per
 * download. node-postgres reads a bytea as hex text (its binary result format decodes values as
 * UTF-8, which corrupts bytes), so a chunk in flight also costs a string of twice its size.
 */
export const BLOB_CHUNK_BYTES = 512 * 1024;

/**
 * The default store: a table in the database every replica already shares, so api and worker
 * replicas on different machines see the same bytes with no extra infrastructure. The column is
 * stored out of line without compression (images and glTF binaries do not compress), which is
 * also what lets `substring` read a slice of it without reading the rest (`open`).
 */
@Injectable()
export class PostgresBlobStore extends BlobStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async put(key: string, bytes: Buffer, contentType: string, tx?: Tx): Promise<void> {
    // Buffers travel as binary parameters: no hex copy of the bytes is built.
    // created_at left out: its default, now(), as the database sees it.
    await rawInsert(
      tx ?? this.db,
      BlobEntity,
      { key, content: bytes, contentType, sizeBytes: bytes.length },
      `ON CONFLICT (key) DO UPDATE SET content = EXCLUDED.content, content_type = EXCLUDED.content_type, size_bytes = EXCLUDED.size_bytes`,
    );
  }

  async get(key: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    const stored = entityColumns(this.db, BlobEntity, { only: ['content', 'contentType'] });
    const [blob] = await stored.rows(this.db, `SELECT ${stored.sql} FROM blobs WHERE key = $1`, [key]);
    return blob ? { bytes: blob.content, contentType: blob.contentType } : null;
  }

  /**
   * The blob as a stream of BLOB_CHUNK_BYTES slices, one query each (`substring` of an
   * uncompressed, out-of-line bytea reads only the TOAST chunks it covers), the next asked for only
   * when the reader has taken the last: a download of 256 MiB holds a chunk or two, not the file.
   * No connection is held between chunks, so a slow client holds no pool client, cursor or
   * transaction, and a client that goes away leaves at most the query in flight, whose answer is
   * dropped. A blob deleted or rewritten with another size meanwhile ends the stream with an error
   * (the response is cut); keys are written once per version, so it does not happen in use.
   */
  async open(key: string): Promise<BlobStream | null> {
    const stored = entityColumns(this.db, BlobEntity, { only: ['contentType', 'sizeBytes'] });
    const [blob] = await stored.rows(this.db, `SELECT ${stored.sql} FROM blobs WHERE key = $1`, [key]);
    if (!blob) return null;
    const read = async (offset: number, length: number): Promise<Buffer | null> => {
      // Positions in SQL count from 1. Straight on the pool: one statement, no transaction.
      const [row] = await poolQuery<{ chunk: Buffer }>(
        this.db,
        `SELECT substring(content FROM $2 FOR $3) AS chunk FROM blobs WHERE key = $1`,
        [key, offset + 1, length],
      );
      return row?.chunk ?? null;
    };
    return { stream: new ChunkedBlobReader(read, blob.sizeBytes), contentType: blob.contentType, sizeBytes: blob.sizeBytes };
  }

  async delete(keys: string[], tx?: Tx): Promise<number> {
    if (keys.length === 0) return 0;
    const { affected } = await rawQuery(tx ?? this.db, `DELETE FROM blobs WHERE key = ANY($1)`, [keys]);
    return affected;
  }
}

/**
 * A Readable over `read(offset, length)`: one read at a time, started from `_read`, so Node's
 * back-pressure (a highWaterMark of one chunk) decides when the next query runs. After `destroy`
 * a read still in flight is let finish and its bytes dropped.
 */
export class ChunkedBlobReader extends Readable {
  private offset = 0;
  private reading = false;

  constructor(
    private readonly readSlice: (offset: number, length: number) => Promise<Buffer | null>,
    private readonly size: number,
    private readonly chunkBytes = BLOB_CHUNK_BYTES,
  ) {
    super({ highWaterMark: chunkBytes });
  }

  override _read(): void {
    if (this.reading) return;
    if (this.offset >= this.size) {
      this.push(null);
      return;
    }
    const length = Math.min(this.chunkBytes, this.size - this.offset);
    this.reading = true;
    this.readSlice(this.offset, length).then(
      (chunk) => {
        this.reading = false;
        if (this.destroyed) return;
        if (!chunk || chunk.length !== length) {
          this.destroy(new Error('the blob changed or went away while it was streamed'));
          return;
        }
        this.offset += length;
        this.push(chunk);
      },
      (error: unknown) => {
        this.reading = false;
        if (!this.destroyed) this.destroy(error as Error);
      },
    );
  }
}
