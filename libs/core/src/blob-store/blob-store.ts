import type { Readable } from 'node:stream';
import { Tx } from '../database/unit-of-work';

/** A stored object opened for reading: its bytes arrive as a stream, never all at once. */
export interface BlobStream {
  stream: Readable;
  contentType: string;
  sizeBytes: number;
}

/**
 * Where bytes live: uploaded images and generated scene files. Keys are opaque paths such as
 * `image-assets/img_…` or `scenes/scn_…/v1/scene.glb`.
 *
 * A `tx` lets a database-backed store write in the caller's transaction, so metadata and bytes
 * commit or roll back together; stores outside the database ignore it (docs/operations.md,
 * "Object storage", says what that means for a rolled-back transaction).
 */
export abstract class BlobStore {
  /** Bytes already in memory (they were validated there) are sent as they are, without a copy. */
  abstract put(key: string, bytes: Buffer, contentType: string, tx?: Tx): Promise<void>;
  /** The whole object in memory: for callers that must decode it (sharp, the generators). */
  abstract get(key: string): Promise<{ bytes: Buffer; contentType: string } | null>;
  /** The object as a stream, for callers that only pass it on (the studio serving a GLB or SPZ). */
  abstract open(key: string): Promise<BlobStream | null>;
  abstract delete(keys: string[], tx?: Tx): Promise<number>;
}
