import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Readable } from 'node:stream';
import { entityColumns, rawInsert, rawQuery } from '../database/raw-sql';
import { BlobEntity } from './blob.entity';
import { BlobStore, BlobStream } from './blob-store';

/**
 * The default store: a table in the database every replica already shares, so api and worker
 * replicas on different machines see the same bytes with no extra infrastructure. The column is
 * stored out of line without compression (images and glTF binaries do not compress).
 */
@Injectable()
export class PostgresBlobStore extends BlobStore {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async put(key: string, bytes: Buffer, contentType: string, tx?: EntityManager): Promise<void> {
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

  /** PostgreSQL hands a bytea over whole: the stream is made from the row's bytes. */
  async open(key: string): Promise<BlobStream | null> {
    const blob = await this.get(key);
    return blob ? { stream: Readable.from([blob.bytes]), contentType: blob.contentType, sizeBytes: blob.bytes.length } : null;
  }

  async delete(keys: string[], tx?: EntityManager): Promise<number> {
    if (keys.length === 0) return 0;
    const { affected } = await rawQuery(tx ?? this.db, `DELETE FROM blobs WHERE key = ANY($1)`, [keys]);
    return affected;
  }
}
