import { entityColumns, rawInsert, rawInsertAll, rawQuery, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from './scene.entity';

/** Rows of another lib's tables inserted with a new scene, each with its entity (rawInsertAll). */
export type AlongsideRows = Parameters<typeof rawInsertAll>[1];

const ACTIVE = `deleted_at IS NULL AND status <> 'failed'`;

@Injectable()
export class ScenesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, fn);
  }

  /**
   * A new scene and the rows that come with it (its creating operation), in one statement: one
   * round trip on the creation path, and the foreign keys between them are checked at its end
   * (plain SQL: TypeORM's insert builder cost more CPU than the statements).
   */
  async insertWith(tx: Tx, scene: SceneEntity, alongside: AlongsideRows): Promise<void> {
    await rawInsertAll(tx, [{ entity: SceneEntity, value: { ...scene } }, ...alongside]);
  }

  /** Active: not deleted and not a failed creation. Other organizations' scenes are never found. */
  async findActive(organizationId: string, id: string): Promise<SceneEntity | null> {
    const all = entityColumns(this.db, SceneEntity);
    const [scene] = await all.rows(this.db, `SELECT ${all.sql} FROM scenes WHERE id = $1 AND organization_id = $2 AND ${ACTIVE}`, [
      id,
      organizationId,
    ]);
    return scene ?? null;
  }

  async findActiveByExternalRef(organizationId: string, externalRef: string): Promise<SceneEntity | null> {
    const all = entityColumns(this.db, SceneEntity);
    const [scene] = await all.rows(
      this.db,
      `SELECT ${all.sql} FROM scenes WHERE organization_id = $1 AND external_ref = $2 AND ${ACTIVE}`,
      [organizationId, externalRef],
    );
    return scene ?? null;
  }

  async lockActive(tx: Tx, organizationId: string, id: string): Promise<SceneEntity | null> {
    const all = entityColumns(tx, SceneEntity);
    const [scene] = await all.rows(tx, `SELECT ${all.sql} FROM scenes WHERE id = $1 AND organization_id = $2 AND ${ACTIVE} FOR UPDATE`, [
      id,
      organizationId,
    ]);
    return scene ?? null;
  }

  /**
   * The organization's scene in any state but deleted (generating, ready, or a failed or
   * cancelled creation), locked: what deletion takes. Other organizations' scenes are never found.
   */
  async lockUndeleted(tx: Tx, organizationId: string, id: string): Promise<SceneEntity | null> {
    const all = entityColumns(tx, SceneEntity);
    const [scene] = await all.rows(
      tx,
      `SELECT ${all.sql} FROM scenes WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL FOR UPDATE`,
      [id, organizationId],
    );
    return scene ?? null;
  }

  async lockById(tx: Tx, id: string): Promise<SceneEntity | null> {
    const all = entityColumns(tx, SceneEntity);
    const [scene] = await all.rows(tx, `SELECT ${all.sql} FROM scenes WHERE id = $1 FOR UPDATE`, [id]);
    return scene ?? null;
  }

  async findById(id: string): Promise<SceneEntity | null> {
    const all = entityColumns(this.db, SceneEntity);
    const [scene] = await all.rows(this.db, `SELECT ${all.sql} FROM scenes WHERE id = $1`, [id]);
    return scene ?? null;
  }

  async markDeleted(tx: Tx, id: string, at: Date): Promise<void> {
    await rawQuery(tx, `UPDATE scenes SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`, [id, at]);
  }

  /** Marks the scene as changed (a new edit was requested), inside the caller's transaction. */
  async touch(tx: Tx, id: string, at: Date): Promise<void> {
    await rawQuery(tx, `UPDATE scenes SET updated_at = $2 WHERE id = $1`, [id, at]);
  }

  async markReady(tx: Tx, id: string, version: number, at: Date): Promise<void> {
    await rawQuery(
      tx,
      `UPDATE scenes SET status = 'ready', current_version = GREATEST(COALESCE(current_version, 0), $2), updated_at = $3 WHERE id = $1`,
      [id, version, at],
    );
  }

  /** A failed creation: the scene stops being active and its externalRef is free again. */
  async markCreationFailed(tx: Tx, id: string, at: Date): Promise<void> {
    await rawQuery(tx, `UPDATE scenes SET status = 'failed', updated_at = $2 WHERE id = $1 AND status = 'generating'`, [id, at]);
  }

  /** False when this version exists already (a duplicate run of the same job). */
  async insertVersion(tx: Tx, v: SceneVersionEntity): Promise<boolean> {
    const { affected } = await rawInsert(tx, SceneVersionEntity, v, 'ON CONFLICT DO NOTHING');
    return affected === 1;
  }

  async insertArtifact(tx: Tx, a: SceneArtifactEntity): Promise<void> {
    await rawInsert(tx, SceneArtifactEntity, a);
  }

  /** A version's files, by kind; in the caller's transaction when given one. */
  artifactsOf(sceneId: string, version: number, tx?: Tx): Promise<SceneArtifactEntity[]> {
    const db = tx ?? this.db;
    const all = entityColumns(db, SceneArtifactEntity);
    return all.rows(db, `SELECT ${all.sql} FROM scene_artifacts WHERE scene_id = $1 AND version = $2 ORDER BY kind`, [sceneId, version]);
  }

  async findVersion(sceneId: string, version: number, tx?: Tx): Promise<SceneVersionEntity | null> {
    const db = tx ?? this.db;
    const all = entityColumns(db, SceneVersionEntity);
    const [found] = await all.rows(db, `SELECT ${all.sql} FROM scene_versions WHERE scene_id = $1 AND version = $2`, [sceneId, version]);
    return found ?? null;
  }

  /**
   * The oldest deleted scene not purged yet that no other transaction holds, locked for the
   * caller's (SKIP LOCKED: purging workers share the backlog, never a scene).
   */
  async lockNextToPurge(tx: Tx): Promise<PurgeCandidate | null> {
    const candidate = entityColumns(tx, SceneEntity, { only: ['id', 'organizationId', 'sourceAssetId', 'deletedAt'] });
    const [scene] = await candidate.rows(
      tx,
      `SELECT ${candidate.sql} FROM scenes
        WHERE deleted_at IS NOT NULL AND purged_at IS NULL
        ORDER BY deleted_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
      [],
    );
    return scene ? { ...scene, deletedAt: scene.deletedAt as Date } : null;
  }

  /**
   * Removes up to `limit` of the scene's file rows and returns their blob keys, each once (a
   * revert's version names the same blobs as the version it restored; a key may come again in a
   * later batch, and deleting a missing blob is a no-op).
   */
  async deleteArtifactBatch(tx: Tx, sceneId: string, limit: number): Promise<string[]> {
    const blobKey = entityColumns(tx, SceneArtifactEntity, { only: ['blobKey'] });
    const deleted = await blobKey.rows(
      tx,
      `DELETE FROM scene_artifacts WHERE (scene_id, version, kind) IN (
         SELECT scene_id, version, kind FROM scene_artifacts WHERE scene_id = $1 LIMIT $2)
       RETURNING ${blobKey.sql}`,
      [sceneId, limit],
    );
    return [...new Set(deleted.map((a) => a.blobKey))];
  }

  /** Removes up to `limit` of the scene's versions (their files first: deleteArtifactBatch); returns how many. */
  async deleteVersionBatch(tx: Tx, sceneId: string, limit: number): Promise<number> {
    const { affected } = await rawQuery(
      tx,
      `DELETE FROM scene_versions WHERE (scene_id, version) IN (
         SELECT scene_id, version FROM scene_versions WHERE scene_id = $1 LIMIT $2)`,
      [sceneId, limit],
    );
    return affected;
  }

  /** The scene stops naming its source image (its purge), so the image can be erased once no scene names it. */
  async releaseSourceImage(tx: Tx, sceneId: string): Promise<void> {
    await rawQuery(tx, `UPDATE scenes SET source_asset_id = NULL WHERE id = $1`, [sceneId]);
  }

  /** Whether any scene, deleted or not, still names the image (read under the image's lock). */
  async namesSourceImage(tx: Tx, assetId: string): Promise<boolean> {
    const { rows } = await rawQuery<{ found: boolean }>(tx, `SELECT EXISTS (SELECT 1 FROM scenes WHERE source_asset_id = $1) AS found`, [
      assetId,
    ]);
    return rows[0].found;
  }

  /** Erases the partner's words from a deleted scene: what stays is an identifier tombstone. */
  async markPurged(tx: Tx, sceneId: string, at: Date): Promise<void> {
    await rawQuery(
      tx,
      `UPDATE scenes SET prompt = NULL, external_ref = NULL, source_asset_id = NULL, purged_at = $2
        WHERE id = $1 AND deleted_at IS NOT NULL`,
      [sceneId, at],
    );
  }
}

/** A deleted scene whose purge is due. */
export interface PurgeCandidate {
  id: string;
  organizationId: string;
  sourceAssetId: string | null;
  deletedAt: Date;
}
