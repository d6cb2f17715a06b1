import { entityColumns, rawInsert, rawQuery, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ImageAssetEntity } from './image-asset.entity';

/** Asset `$1` of organization `$2`, if attached or not yet expired at `$3`. */
const AVAILABLE = `id = $1 AND organization_id = $2 AND (status = 'attached' OR expires_at > $3)`;

@Injectable()
export class ImageAssetsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, fn);
  }

  async insert(asset: ImageAssetEntity, tx: Tx): Promise<void> {
    await rawInsert(tx, ImageAssetEntity, asset);
  }

  /** The organization's asset if it is attached or not yet expired at `now`; expiry is decided here, at read. */
  async findAvailable(organizationId: string, id: string, now: Date): Promise<ImageAssetEntity | null> {
    const all = entityColumns(this.db, ImageAssetEntity);
    const [asset] = await all.rows(this.db, `SELECT ${all.sql} FROM image_assets WHERE ${AVAILABLE}`, [id, organizationId, now]);
    return asset ?? null;
  }

  /**
   * Locks an available asset inside a scene-creation transaction so the sweeper cannot delete
   * it between the check and the attach.
   */
  async lockAvailable(tx: Tx, organizationId: string, id: string, now: Date): Promise<ImageAssetEntity | null> {
    const all = entityColumns(tx, ImageAssetEntity);
    const [asset] = await all.rows(tx, `SELECT ${all.sql} FROM image_assets WHERE ${AVAILABLE} FOR UPDATE`, [id, organizationId, now]);
    return asset ?? null;
  }

  /**
   * Moves an unattached, unexpired asset of the organization's expiry to `now` (test mode's
   * clock); null when there is no such asset. The sweeper then erases it as any expired one.
   */
  async expireNow(organizationId: string, id: string, now: Date): Promise<Date | null> {
    const expiry = entityColumns(this.db, ImageAssetEntity, { only: ['expiresAt'] });
    const [expired] = await expiry.rows(
      this.db,
      `UPDATE image_assets SET expires_at = $3
        WHERE id = $1 AND organization_id = $2 AND status = 'unattached' AND expires_at > $3
        RETURNING ${expiry.sql}`,
      [id, organizationId, now],
    );
    return expired?.expiresAt ?? null;
  }

  async markAttached(tx: Tx, id: string, now: Date): Promise<void> {
    await rawQuery(
      tx,
      `UPDATE image_assets SET status = 'attached', expires_at = NULL, attached_at = COALESCE(attached_at, $2) WHERE id = $1`,
      [id, now],
    );
  }

  /** Any asset by id, attached or not, locked for the caller's transaction (its erasure). */
  async lockById(tx: Tx, id: string): Promise<Pick<ImageAssetEntity, 'id' | 'blobKey'> | null> {
    const key = entityColumns(tx, ImageAssetEntity, { only: ['id', 'blobKey'] });
    const [asset] = await key.rows(tx, `SELECT ${key.sql} FROM image_assets WHERE id = $1 FOR UPDATE`, [id]);
    return asset ?? null;
  }

  async findById(id: string): Promise<ImageAssetEntity | null> {
    const all = entityColumns(this.db, ImageAssetEntity);
    const [asset] = await all.rows(this.db, `SELECT ${all.sql} FROM image_assets WHERE id = $1`, [id]);
    return asset ?? null;
  }

  /**
   * Takes one batch of expired unattached assets, locked with SKIP LOCKED so that several
   * worker replicas sweeping at once never take the same rows.
   */
  lockExpiredBatch(tx: Tx, now: Date, limit: number): Promise<Pick<ImageAssetEntity, 'id' | 'blobKey'>[]> {
    const expired = entityColumns(tx, ImageAssetEntity, { only: ['id', 'blobKey'] });
    return expired.rows(
      tx,
      `SELECT ${expired.sql} FROM image_assets
        WHERE status = 'unattached' AND expires_at <= $1
        ORDER BY expires_at
        LIMIT $2
        FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
  }

  async deleteByIds(tx: Tx, ids: string[]): Promise<void> {
    await rawQuery(tx, `DELETE FROM image_assets WHERE id = ANY($1)`, [ids]);
  }
}
