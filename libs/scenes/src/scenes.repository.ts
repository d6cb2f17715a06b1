import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SceneArtifactRecord, SceneEntity, SceneVersionEntity } from './scene.entity';

const ACTIVE = `s.deleted_at IS NULL AND s.status <> 'failed'`;

@Injectable()
export class ScenesRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(fn: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** Plain SQL: on the creation path TypeORM's insert builder cost more CPU than the statement. */
  async insert(tx: EntityManager, scene: SceneEntity): Promise<void> {
    await tx.query(
      `INSERT INTO scenes (id, organization_id, external_ref, prompt, source_asset_id, status, current_version,
                           creating_operation_id, created_at, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        scene.id,
        scene.organizationId,
        scene.externalRef,
        scene.prompt,
        scene.sourceAssetId,
        scene.status,
        scene.currentVersion,
        scene.creatingOperationId,
        scene.createdAt,
        scene.updatedAt,
        scene.deletedAt,
      ],
    );
  }

  private scenes(tx?: EntityManager) {
    return (tx ?? this.db.manager).getRepository(SceneEntity).createQueryBuilder('s');
  }

  /** Active: not deleted and not a failed creation. Other organizations' scenes are never found. */
  findActive(organizationId: string, id: string): Promise<SceneEntity | null> {
    return this.scenes().where(`s.id = :id AND s.organization_id = :organizationId AND ${ACTIVE}`, { id, organizationId }).getOne();
  }

  findActiveByExternalRef(organizationId: string, externalRef: string): Promise<SceneEntity | null> {
    return this.scenes()
      .where(`s.organization_id = :organizationId AND s.external_ref = :externalRef AND ${ACTIVE}`, { organizationId, externalRef })
      .getOne();
  }

  lockActive(tx: EntityManager, organizationId: string, id: string): Promise<SceneEntity | null> {
    return this.scenes(tx)
      .setLock('pessimistic_write')
      .where(`s.id = :id AND s.organization_id = :organizationId AND ${ACTIVE}`, { id, organizationId })
      .getOne();
  }

  /**
   * The organization's scene in any state but deleted (generating, ready, or a failed or
   * cancelled creation), locked: what deletion takes. Other organizations' scenes are never found.
   */
  lockUndeleted(tx: EntityManager, organizationId: string, id: string): Promise<SceneEntity | null> {
    return this.scenes(tx)
      .setLock('pessimistic_write')
      .where('s.id = :id AND s.organization_id = :organizationId AND s.deleted_at IS NULL', { id, organizationId })
      .getOne();
  }

  lockById(tx: EntityManager, id: string): Promise<SceneEntity | null> {
    return this.scenes(tx).setLock('pessimistic_write').where('s.id = :id', { id }).getOne();
  }

  findById(id: string): Promise<SceneEntity | null> {
    return this.db.getRepository(SceneEntity).findOneBy({ id });
  }

  async markDeleted(tx: EntityManager, id: string, at: Date): Promise<void> {
    await tx.query(`UPDATE scenes SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL`, [id, at]);
  }

  /** Marks the scene as changed (a new edit was requested), inside the caller's transaction. */
  async touch(tx: EntityManager, id: string, at: Date): Promise<void> {
    await tx.query(`UPDATE scenes SET updated_at = $2 WHERE id = $1`, [id, at]);
  }

  async markReady(tx: EntityManager, id: string, version: number, at: Date): Promise<void> {
    await tx.query(
      `UPDATE scenes SET status = 'ready', current_version = GREATEST(COALESCE(current_version, 0), $2), updated_at = $3 WHERE id = $1`,
      [id, version, at],
    );
  }

  /** A failed creation: the scene stops being active and its externalRef is free again. */
  async markCreationFailed(tx: EntityManager, id: string, at: Date): Promise<void> {
    await tx.query(`UPDATE scenes SET status = 'failed', updated_at = $2 WHERE id = $1 AND status = 'generating'`, [id, at]);
  }

  /** False when this version exists already (a duplicate run of the same job). */
  async insertVersion(tx: EntityManager, v: SceneVersionEntity): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `INSERT INTO scene_versions (scene_id, version, operation_id, generator, spec, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING version`,
      [v.sceneId, v.version, v.operationId, v.generator, JSON.stringify(v.spec), v.createdAt],
    );
    return rows.length === 1;
  }

  async insertArtifact(tx: EntityManager, a: SceneArtifactRecord): Promise<void> {
    await tx.query(
      `INSERT INTO scene_artifacts (scene_id, version, kind, blob_key, content_type, bytes, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [a.sceneId, a.version, a.kind, a.blobKey, a.contentType, a.bytes, a.sha256],
    );
  }

  /** A version's files, by kind; in the caller's transaction when given one. */
  async artifactsOf(sceneId: string, version: number, tx?: EntityManager): Promise<SceneArtifactRecord[]> {
    const rows: { kind: SceneArtifactRecord['kind']; blob_key: string; content_type: string; bytes: string; sha256: string }[] = await (
      tx ?? this.db.manager
    ).query(`SELECT kind, blob_key, content_type, bytes, sha256 FROM scene_artifacts WHERE scene_id = $1 AND version = $2 ORDER BY kind`, [
      sceneId,
      version,
    ]);
    return rows.map((r) => ({
      sceneId,
      version,
      kind: r.kind,
      blobKey: r.blob_key,
      contentType: r.content_type,
      bytes: Number(r.bytes),
      sha256: r.sha256,
    }));
  }

  findVersion(sceneId: string, version: number, tx?: EntityManager): Promise<SceneVersionEntity | null> {
    return (tx ?? this.db.manager).getRepository(SceneVersionEntity).findOneBy({ sceneId, version });
  }

  /**
   * The oldest deleted scene not purged yet that no other transaction holds, locked for the
   * caller's (SKIP LOCKED: purging workers share the backlog, never a scene).
   */
  async lockNextToPurge(tx: EntityManager): Promise<PurgeCandidate | null> {
    const rows: { id: string; organization_id: string; source_asset_id: string | null; deleted_at: Date }[] = await tx.query(
      `SELECT id, organization_id, source_asset_id, deleted_at FROM scenes
        WHERE deleted_at IS NOT NULL AND purged_at IS NULL
        ORDER BY deleted_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    const r = rows[0];
    return r ? { id: r.id, organizationId: r.organization_id, sourceAssetId: r.source_asset_id, deletedAt: r.deleted_at } : null;
  }

  /**
   * Removes up to `limit` of the scene's file rows and returns their blob keys, each once (a
   * revert's version names the same blobs as the version it restored; a key may come again in a
   * later batch, and deleting a missing blob is a no-op).
   */
  async deleteArtifactBatch(tx: EntityManager, sceneId: string, limit: number): Promise<string[]> {
    // For DELETE and UPDATE, TypeORM's postgres driver answers [rows, affected].
    const [rows]: [{ blob_key: string }[], number] = await tx.query(
      `DELETE FROM scene_artifacts WHERE (scene_id, version, kind) IN (
         SELECT scene_id, version, kind FROM scene_artifacts WHERE scene_id = $1 LIMIT $2)
       RETURNING blob_key`,
      [sceneId, limit],
    );
    return [...new Set(rows.map((r) => r.blob_key))];
  }

  /** Removes up to `limit` of the scene's versions (their files first: deleteArtifactBatch); returns how many. */
  async deleteVersionBatch(tx: EntityManager, sceneId: string, limit: number): Promise<number> {
    const [, affected]: [unknown[], number] = await tx.query(
      `DELETE FROM scene_versions WHERE (scene_id, version) IN (
         SELECT scene_id, version FROM scene_versions WHERE scene_id = $1 LIMIT $2)`,
      [sceneId, limit],
    );
    return affected;
  }

  /** The scene stops naming its source image (its purge), so the image can be erased once no scene names it. */
  async releaseSourceImage(tx: EntityManager, sceneId: string): Promise<void> {
    await tx.query(`UPDATE scenes SET source_asset_id = NULL WHERE id = $1`, [sceneId]);
  }

  /** Whether any scene, deleted or not, still names the image (read under the image's lock). */
  async namesSourceImage(tx: EntityManager, assetId: string): Promise<boolean> {
    const rows: unknown[] = await tx.query(`SELECT 1 FROM scenes WHERE source_asset_id = $1 LIMIT 1`, [assetId]);
    return rows.length > 0;
  }

  /** Erases the partner's words from a deleted scene: what stays is an identifier tombstone. */
  async markPurged(tx: EntityManager, sceneId: string, at: Date): Promise<void> {
    await tx.query(
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
