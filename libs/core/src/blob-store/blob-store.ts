import { EntityManager } from 'typeorm';

/**
 * Where bytes live: uploaded images and generated scene files. Keys are opaque paths such as
 * `image-assets/img_…` or `scenes/scn_…/v1/scene.glb`.
 *
 * A `tx` lets a database-backed store write in the caller's transaction, so metadata and bytes
 * commit or roll back together; stores outside the database ignore it.
 */
export abstract class BlobStore {
  abstract put(key: string, bytes: Buffer, contentType: string, tx?: EntityManager): Promise<void>;
  abstract get(key: string): Promise<{ bytes: Buffer; contentType: string } | null>;
  abstract delete(keys: string[], tx?: EntityManager): Promise<number>;
}
