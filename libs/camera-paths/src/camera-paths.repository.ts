import { entityColumns, Tx, managerOf, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, FindOptionsSelect } from 'typeorm';
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

/** Every column but the document: what the list reads. */
const ROW_COLUMNS = {
  id: true,
  organizationId: true,
  sceneId: true,
  kind: true,
  name: true,
  durationMs: true,
  keyframeCount: true,
  sampleCount: true,
  createdAt: true,
  updatedAt: true,
} satisfies FindOptionsSelect<CameraPathEntity>;

/** The row's key within its scope: a path outside the scope is not found, changed or deleted. */
const inScope = (scope: CameraPathScope, id: string) => ({ id, organizationId: scope.organizationId, sceneId: scope.sceneId });

@Injectable()
export class CameraPathsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }

  /** The document goes in as the JSON text already made, not serialised again by TypeORM. */
  async insert(tx: Tx, path: CameraPathEntity, documentJson: string): Promise<void> {
    await managerOf(tx)
      .createQueryBuilder()
      .insert()
      .into(CameraPathEntity)
      .values({ ...path, document: () => 'CAST(:documentJson AS jsonb)' })
      .setParameter('documentJson', documentJson)
      .execute();
  }

  /** How many paths the scene keeps, in the caller's transaction (which holds the scene's lock). */
  countForScene(tx: Tx, scope: CameraPathScope): Promise<number> {
    return managerOf(tx).getRepository(CameraPathEntity).countBy({ organizationId: scope.organizationId, sceneId: scope.sceneId });
  }

  /** Newest first (the id, a ULID, orders paths saved in the same millisecond); documents are not read. */
  list(scope: CameraPathScope, kind?: CameraPathKind): Promise<CameraPathListed[]> {
    return this.db.getRepository(CameraPathEntity).find({
      select: ROW_COLUMNS,
      where: { organizationId: scope.organizationId, sceneId: scope.sceneId, ...(kind && { kind }) },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  find(scope: CameraPathScope, id: string): Promise<CameraPathEntity | null> {
    return this.db.getRepository(CameraPathEntity).findOneBy(inScope(scope, id));
  }

  /** The path's kind, for checking a new document against it; null when not in scope. */
  async kindOf(scope: CameraPathScope, id: string): Promise<CameraPathKind | null> {
    const found = await this.db.getRepository(CameraPathEntity).findOne({ select: { kind: true }, where: inScope(scope, id) });
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
    await this.db.getRepository(CameraPathEntity).delete(inScope(scope, id));
  }

  /** Every path of a scene, in the transaction that deletes the scene. */
  async deleteForScene(tx: Tx, scope: CameraPathScope): Promise<void> {
    await managerOf(tx).getRepository(CameraPathEntity).delete({ organizationId: scope.organizationId, sceneId: scope.sceneId });
  }
}
