import { entityColumns, rawQuery, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CameraPathEntity, CameraPathListed } from './camera-path.entity';
import type { CameraPathDocument, CameraPathKind } from '@scene-studio/camera-path';

/** Every query names the organization and the scene: a path is reached only through both. */
export interface CameraPathScope {
  organizationId: string;
  sceneId: string;
}

/** A new name and document with the summary columns that follow from it. */
export interface CameraPathChange {
  name: string;
  document: CameraPathDocument;
  /** The document as JSON text, written once (a take is megabytes): what the column receives. */
  documentJson: string;
  durationMs: number;
  keyframeCount: number;
  sampleCount: number;
}

/** The row's key within its scope: a path outside the scope is not found, changed or deleted. */
const inScope = (scope: CameraPathScope, id: string) => ({ id, organizationId: scope.organizationId, sceneId: scope.sceneId });

@Injectable()
export class CameraPathsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }

  /** Every column but the document: what the list reads. */
  private get listedColumns() {
    return entityColumns(this.db, CameraPathEntity, { except: ['document'] });
  }

  /** The document goes in as the JSON text already made, not serialised again (rawInsert would). */
  async insert(tx: Tx, path: CameraPathEntity, documentJson: string): Promise<void> {
    const columns = this.listedColumns;
    const values = columns.properties.map((p) => path[p as keyof CameraPathEntity]);
    await rawQuery(
      tx,
      `INSERT INTO camera_paths (${columns.sql}, document) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')}, $${values.length + 1})`,
      [...values, documentJson],
    );
  }

  /** How many paths the scene keeps, in the caller's transaction (which holds the scene's lock). */
  async countForScene(tx: Tx, scope: CameraPathScope): Promise<number> {
    const { rows } = await rawQuery<{ n: number }>(
      tx,
      `SELECT count(*)::int AS n FROM camera_paths WHERE organization_id = $1 AND scene_id = $2`,
      [scope.organizationId, scope.sceneId],
    );
    return rows[0].n;
  }

  /** Newest first (the id, a ULID, orders paths saved in the same millisecond); documents are not read. */
  list(scope: CameraPathScope, kind?: CameraPathKind): Promise<CameraPathListed[]> {
    const listed = this.listedColumns;
    return listed.rows(
      this.db,
      `SELECT ${listed.sql} FROM camera_paths
        WHERE organization_id = $1 AND scene_id = $2${kind ? ' AND kind = $3' : ''}
        ORDER BY created_at DESC, id DESC`,
      kind ? [scope.organizationId, scope.sceneId, kind] : [scope.organizationId, scope.sceneId],
    );
  }

  async find(scope: CameraPathScope, id: string): Promise<CameraPathEntity | null> {
    const all = entityColumns(this.db, CameraPathEntity);
    const [path] = await all.rows(this.db, `SELECT ${all.sql} FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3`, [
      id,
      scope.organizationId,
      scope.sceneId,
    ]);
    return path ?? null;
  }

  /** The path's kind, for checking a new document against it; null when not in scope. */
  async kindOf(scope: CameraPathScope, id: string): Promise<CameraPathKind | null> {
    const kind = entityColumns(this.db, CameraPathEntity, { only: ['kind'] });
    const [found] = await kind.rows(
      this.db,
      `SELECT ${kind.sql} FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3`,
      [id, scope.organizationId, scope.sceneId],
    );
    return found?.kind ?? null;
  }

  /**
   * Replaces name and document (the kind is fixed at creation), in one statement that also reads
   * back what the answer needs. Null when not in scope.
   */
  async update(scope: CameraPathScope, id: string, change: CameraPathChange, at: Date): Promise<CameraPathEntity | null> {
    const unchanged = entityColumns(this.db, CameraPathEntity, { only: ['kind', 'createdAt'] });
    const [path] = await unchanged.rows(
      this.db,
      `UPDATE camera_paths
          SET name = $4, document = $5, duration_ms = $6, keyframe_count = $7, sample_count = $8, updated_at = $9
        WHERE id = $1 AND organization_id = $2 AND scene_id = $3
        RETURNING ${unchanged.sql}`,
      [
        id,
        scope.organizationId,
        scope.sceneId,
        change.name,
        change.documentJson,
        change.durationMs,
        change.keyframeCount,
        change.sampleCount,
        at,
      ],
    );
    if (!path) return null;
    const { documentJson: _, ...columns } = change;
    return { ...inScope(scope, id), kind: path.kind, ...columns, createdAt: path.createdAt, updatedAt: at };
  }

  /** Silent when nothing matches: unknown, another scene's or another organization's. */
  async delete(scope: CameraPathScope, id: string): Promise<void> {
    await rawQuery(this.db, `DELETE FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3`, [
      id,
      scope.organizationId,
      scope.sceneId,
    ]);
  }

  /** Every path of a scene, in the transaction that deletes the scene. */
  async deleteForScene(tx: Tx, scope: CameraPathScope): Promise<void> {
    await rawQuery(tx, `DELETE FROM camera_paths WHERE organization_id = $1 AND scene_id = $2`, [scope.organizationId, scope.sceneId]);
  }
}
