import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EmbedSessionEntity } from './embed-session.entity';

/** A session with the state of its scene, as the studio needs it on every call. */
export interface SessionWithScene {
  session: EmbedSessionEntity;
  scene: {
    id: string;
    deleted: boolean;
    status: 'generating' | 'ready' | 'failed';
    version: number | null;
    sourceAssetId: string | null;
    /** While the first version is generating: 0 to 1. */
    progress: number | null;
    /** When creation failed: the creating operation's safe error. */
    error: SceneFailure | null;
  };
}

export interface SceneFailure {
  code: string;
  message: string;
  retryable: boolean;
}

/** The creating operation's progress and safe error, next to the scene's own columns. */
const CREATION = `
  c.progress AS creation_progress, c.error_code AS creation_error_code, c.error_message AS creation_error_message,
  c.error_retryable AS creation_error_retryable`;

type SceneStatus = SessionWithScene['scene']['status'];

/** The creating operation's columns, as CREATION selects them. */
interface CreationColumns {
  creation_progress: number | null;
  creation_error_code: string | null;
  creation_error_message: string | null;
  creation_error_retryable: boolean | null;
}

/** A row of `findOne`. */
interface SessionRow extends CreationColumns {
  id: string;
  organization_id: string;
  scene_id: string;
  origin: string;
  mode: EmbedSessionEntity['mode'];
  theme: EmbedSessionEntity['theme'];
  secret_hash: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: EmbedSessionEntity['revokedReason'];
  scene_deleted_at: Date | null;
  scene_status: SceneStatus;
  scene_version: number | null;
  scene_source_asset_id: string | null;
}

/** A row of `watch`. */
interface WatchRow extends CreationColumns {
  id: string;
  revoked_at: Date | null;
  expires_at: Date;
  deleted_at: Date | null;
  status: SceneStatus;
  current_version: number | null;
  edits_updated_at: Date | null;
}

function creationOf(r: CreationColumns, status: SceneStatus): { progress: number | null; error: SceneFailure | null } {
  return {
    progress: status === 'generating' ? (r.creation_progress ?? 0) : null,
    error:
      status === 'failed' && r.creation_error_code
        ? { code: r.creation_error_code, message: r.creation_error_message ?? '', retryable: r.creation_error_retryable ?? false }
        : null,
  };
}

/** What the studio's event streams watch, per session. */
export interface WatchedState {
  id: string;
  revokedAt: Date | null;
  expiresAt: Date;
  sceneDeleted: boolean;
  sceneStatus: 'generating' | 'ready' | 'failed';
  sceneVersion: number | null;
  sceneProgress: number | null;
  sceneError: SceneFailure | null;
  editsUpdatedAt: Date | null;
}

@Injectable()
export class EmbedSessionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(session: EmbedSessionEntity): Promise<void> {
    await this.db.getRepository(EmbedSessionEntity).insert(session);
  }

  /** Revokes one session of the organization; false when there was nothing to revoke. */
  async revoke(organizationId: string, id: string, at: Date): Promise<boolean> {
    const [, affected]: [unknown[], number] = await this.db.query(
      `UPDATE embed_sessions SET revoked_at = $3, revoked_reason = 'revoked'
        WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL`,
      [id, organizationId, at],
    );
    return affected > 0;
  }

  async revokeForScene(tx: EntityManager, sceneId: string, at: Date): Promise<number> {
    const [, affected]: [unknown[], number] = await tx.query(
      `UPDATE embed_sessions SET revoked_at = $2, revoked_reason = 'scene_deleted' WHERE scene_id = $1 AND revoked_at IS NULL`,
      [sceneId, at],
    );
    return affected;
  }

  findById(id: string): Promise<SessionWithScene | null> {
    return this.findOne(`es.id = $1`, [id]);
  }

  findBySecretHash(hash: string): Promise<SessionWithScene | null> {
    return this.findOne(`es.secret_hash = $1`, [hash]);
  }

  private async findOne(where: string, params: unknown[]): Promise<SessionWithScene | null> {
    const rows = await this.db.query<SessionRow[]>(
      `SELECT es.id, es.organization_id, es.scene_id, es.origin, es.mode, es.theme, es.secret_hash, es.created_at,
              es.expires_at, es.revoked_at, es.revoked_reason,
              s.deleted_at AS scene_deleted_at, s.status AS scene_status, s.current_version AS scene_version,
              s.source_asset_id AS scene_source_asset_id, ${CREATION}
         FROM embed_sessions es JOIN scenes s ON s.id = es.scene_id
         LEFT JOIN operations c ON c.id = s.creating_operation_id
        WHERE ${where}`,
      params,
    );
    if (rows.length === 0) return null;
    const r = rows[0];
    return {
      session: {
        id: r.id,
        organizationId: r.organization_id,
        sceneId: r.scene_id,
        origin: r.origin,
        mode: r.mode,
        theme: r.theme,
        secretHash: r.secret_hash,
        createdAt: r.created_at,
        expiresAt: r.expires_at,
        revokedAt: r.revoked_at,
        revokedReason: r.revoked_reason,
      },
      scene: {
        id: r.scene_id,
        deleted: r.scene_deleted_at !== null,
        status: r.scene_status,
        version: r.scene_version,
        sourceAssetId: r.scene_source_asset_id,
        ...creationOf(r, r.scene_status),
      },
    };
  }

  /** The watched state of many sessions in one query: one per studio process and tick. */
  async watch(ids: string[]): Promise<WatchedState[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<WatchRow[]>(
      `SELECT es.id, es.revoked_at, es.expires_at, s.deleted_at, s.status, s.current_version, ${CREATION},
              (SELECT max(o.updated_at) FROM operations o WHERE o.scene_id = s.id AND o.kind = 'scene.edit') AS edits_updated_at
         FROM embed_sessions es JOIN scenes s ON s.id = es.scene_id
         LEFT JOIN operations c ON c.id = s.creating_operation_id
        WHERE es.id = ANY($1)`,
      [ids],
    );
    return rows.map((r) => {
      const creation = creationOf(r, r.status);
      return {
        id: r.id,
        revokedAt: r.revoked_at,
        expiresAt: r.expires_at,
        sceneDeleted: r.deleted_at !== null,
        sceneStatus: r.status,
        sceneVersion: r.current_version,
        sceneProgress: creation.progress,
        sceneError: creation.error,
        editsUpdatedAt: r.edits_updated_at,
      };
    });
  }
}
