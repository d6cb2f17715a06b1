import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Readable } from 'node:stream';
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
    await (tx ?? this.db.manager).query(
      `INSERT INTO blobs (key, content, content_type, size_bytes, created_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (key) DO UPDATE SET content = EXCLUDED.content, content_type = EXCLUDED.content_type,
         size_bytes = EXCLUDED.size_bytes`,
      [key, bytes, contentType, bytes.length],
    );
  }

  async get(key: string): Promise<{ bytes: Buffer; contentType: string } | null> {
    const rows: { content: Buffer; content_type: string }[] = await this.db.query(
      `SELECT content, content_type FROM blobs WHERE key = $1`,
      [key],
    );
    return rows.length ? { bytes: rows[0].content, contentType: rows[0].content_type } : null;
  }

  /** PostgreSQL hands a bytea over whole: the stream is made from the row's bytes. */
  async open(key: string): Promise<BlobStream | null> {
    const blob = await this.get(key);
    return blob ? { stream: Readable.from([blob.bytes]), contentType: blob.contentType, sizeBytes: blob.bytes.length } : null;
  }

  async delete(keys: string[], tx?: EntityManager): Promise<number> {
    if (keys.length === 0) return 0;
    const res: [unknown[], number] = await (tx ?? this.db.manager).query(`DELETE FROM blobs WHERE key = ANY($1)`, [keys]);
    return res[1];
  }
}
