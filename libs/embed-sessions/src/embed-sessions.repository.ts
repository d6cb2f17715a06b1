import { SCENE_EDITS_UPDATED_AT, SCENE_STATE_VIEW, SceneState, SceneStateRow, sceneStateColumns, toSceneState } from '@app/scenes';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { EmbedSessionEntity } from './embed-session.entity';

/** A session with the state of its scene, as the studio needs it on every call. */
export interface SessionWithScene {
  session: EmbedSessionEntity;
  scene: SceneState;
}

/** A row of `findOne`: the session's columns and its scene's state (the scenes lib's read model). */
interface SessionRow extends SceneStateRow {
  id: string;
  organization_id: string;
  origin: string;
  mode: EmbedSessionEntity['mode'];
  theme: EmbedSessionEntity['theme'];
  secret_hash: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: EmbedSessionEntity['revokedReason'];
}

/** A row of `watch`. */
interface WatchRow extends SceneStateRow {
  id: string;
  revoked_at: Date | null;
  expires_at: Date;
  scene_edits_updated_at: Date | null;
}

/** What the studio's event streams watch, per session. */
export interface WatchedState {
  id: string;
  revokedAt: Date | null;
  expiresAt: Date;
  scene: SceneState;
  /** The last change to any edit of the scene: the studio reloads its edit history when it moves. */
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
      `SELECT es.id, es.organization_id, es.origin, es.mode, es.theme, es.secret_hash, es.created_at,
              es.expires_at, es.revoked_at, es.revoked_reason, ${sceneStateColumns('st')}
         FROM embed_sessions es JOIN ${SCENE_STATE_VIEW} st ON st.scene_id = es.scene_id
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
      scene: toSceneState(r),
    };
  }

  /** The watched state of many sessions in one query: one per studio process and tick. */
  async watch(ids: string[]): Promise<WatchedState[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<WatchRow[]>(
      `SELECT es.id, es.revoked_at, es.expires_at, ${sceneStateColumns('st')}, st.${SCENE_EDITS_UPDATED_AT}
         FROM embed_sessions es JOIN ${SCENE_STATE_VIEW} st ON st.scene_id = es.scene_id
        WHERE es.id = ANY($1)`,
      [ids],
    );
    return rows.map((r) => ({
      id: r.id,
      revokedAt: r.revoked_at,
      expiresAt: r.expires_at,
      scene: toSceneState(r),
      editsUpdatedAt: r.scene_edits_updated_at,
    }));
  }
}
