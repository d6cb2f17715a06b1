import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { CameraPathEntity, CameraPathRow } from './camera-path.entity';
import type { CameraPathDocumentDto } from './dto/camera-path-document.dto';
import type { CameraPathKind } from './dto/camera-path.dto';

/** Every query names the organization and the scene: a path is reached only through both. */
export interface CameraPathScope {
  organizationId: string;
  sceneId: string;
}

/** A new name and document with the summary columns that follow from it. */
export interface CameraPathChange {
  name: string;
  document: CameraPathDocumentDto;
  durationMs: number;
  keyframeCount: number;
  sampleCount: number;
}

interface RowRecord {
  id: string;
  organization_id: string;
  scene_id: string;
  kind: CameraPathKind;
  name: string;
  duration_ms: number;
  keyframe_count: number;
  sample_count: number;
  created_at: Date;
  updated_at: Date;
}

interface DocumentRecord extends RowRecord {
  document: CameraPathDocumentDto;
}

const ROW_COLUMNS = `id, organization_id, scene_id, kind, name, duration_ms, keyframe_count, sample_count, created_at, updated_at`;

function toRow(r: RowRecord): CameraPathRow {
  return {
    id: r.id,
    organizationId: r.organization_id,
    sceneId: r.scene_id,
    kind: r.kind,
    name: r.name,
    durationMs: r.duration_ms,
    keyframeCount: r.keyframe_count,
    sampleCount: r.sample_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

const toEntity = (r: DocumentRecord): CameraPathEntity => ({ ...toRow(r), document: r.document });

@Injectable()
export class CameraPathsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async insert(tx: EntityManager, path: CameraPathEntity): Promise<void> {
    await tx.query(
      `INSERT INTO camera_paths (id, organization_id, scene_id, kind, name, document, duration_ms, keyframe_count, sample_count,
                                 created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        path.id,
        path.organizationId,
        path.sceneId,
        path.kind,
        path.name,
        JSON.stringify(path.document),
        path.durationMs,
        path.keyframeCount,
        path.sampleCount,
        path.createdAt,
        path.updatedAt,
      ],
    );
  }

  /** How many paths the scene keeps, in the caller's transaction (which holds the scene's lock). */
  async countForScene(tx: EntityManager, scope: CameraPathScope): Promise<number> {
    const [{ count }]: { count: number }[] = await tx.query(
      `SELECT count(*)::int AS count FROM camera_paths WHERE organization_id = $1 AND scene_id = $2`,
      [scope.organizationId, scope.sceneId],
    );
    return count;
  }

  /** Newest first (the id, a ULID, orders paths saved in the same millisecond); documents are not read. */
  async list(scope: CameraPathScope, kind?: CameraPathKind): Promise<CameraPathRow[]> {
    const rows: RowRecord[] = await this.db.query(
      `SELECT ${ROW_COLUMNS} FROM camera_paths
        WHERE organization_id = $1 AND scene_id = $2 AND ($3::text IS NULL OR kind = $3)
        ORDER BY created_at DESC, id DESC`,
      [scope.organizationId, scope.sceneId, kind ?? null],
    );
    return rows.map(toRow);
  }

  async find(scope: CameraPathScope, id: string): Promise<CameraPathEntity | null> {
    const rows: DocumentRecord[] = await this.db.query(
      `SELECT ${ROW_COLUMNS}, document FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3`,
      [id, scope.organizationId, scope.sceneId],
    );
    return rows.length === 1 ? toEntity(rows[0]) : null;
  }

  /** The path's kind, for checking a new document against it; null when not in scope. */
  async kindOf(scope: CameraPathScope, id: string): Promise<CameraPathKind | null> {
    const rows: { kind: CameraPathKind }[] = await this.db.query(
      `SELECT kind FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3`,
      [id, scope.organizationId, scope.sceneId],
    );
    return rows[0]?.kind ?? null;
  }

  /**
   * Replaces name and document, only if the path is still of `kind` (it always is: kinds never
   * change; the condition keeps the check and the write one statement). Null when not in scope.
   */
  async update(
    scope: CameraPathScope,
    id: string,
    kind: CameraPathKind,
    change: CameraPathChange,
    at: Date,
  ): Promise<CameraPathRow | null> {
    const [rows]: [RowRecord[], number] = await this.db.query(
      `UPDATE camera_paths
          SET name = $5, document = $6, duration_ms = $7, keyframe_count = $8, sample_count = $9, updated_at = $10
        WHERE id = $1 AND organization_id = $2 AND scene_id = $3 AND kind = $4
        RETURNING ${ROW_COLUMNS}`,
      [
        id,
        scope.organizationId,
        scope.sceneId,
        kind,
        change.name,
        JSON.stringify(change.document),
        change.durationMs,
        change.keyframeCount,
        change.sampleCount,
        at,
      ],
    );
    return rows.length === 1 ? toRow(rows[0]) : null;
  }

  /** Silent when nothing matches: unknown, another scene's or another organization's. */
  async delete(scope: CameraPathScope, id: string): Promise<void> {
    await this.db.query(`DELETE FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3`, [
      id,
      scope.organizationId,
      scope.sceneId,
    ]);
  }

  /** Every path of a scene, in the transaction that deletes the scene. */
  async deleteForScene(tx: EntityManager, scope: CameraPathScope): Promise<void> {
    await tx.query(`DELETE FROM camera_paths WHERE organization_id = $1 AND scene_id = $2`, [scope.organizationId, scope.sceneId]);
  }
}
