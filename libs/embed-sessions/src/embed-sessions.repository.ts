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

/** A session whose end is to be announced. */
export interface EndedSession {
  id: string;
  organizationId: string;
  sceneId: string;
}

interface EndedRow {
  id: string;
  organization_id: string;
  scene_id: string;
  expires_at: Date;
}

function toEnded(r: EndedRow): EndedSession {
  return { id: r.id, organizationId: r.organization_id, sceneId: r.scene_id };
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

  async insert(session: EmbedSessionEntity, tx?: EntityManager): Promise<void> {
    await (tx ?? this.db.manager).getRepository(EmbedSessionEntity).insert(session);
  }

  /**
   * Revokes one session of the organization, in the caller's transaction. Returns the session
   * when this call revoked it and it had not expired (its end is news), else null.
   */
  async revoke(tx: EntityManager, organizationId: string, id: string, at: Date): Promise<EndedSession | null> {
    const [rows]: [EndedRow[], number] = await tx.query(
      `UPDATE embed_sessions SET revoked_at = $3, revoked_reason = 'revoked',
              end_reported_at = CASE WHEN expires_at > $3 THEN $3::timestamptz ELSE end_reported_at END
        WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL
        RETURNING id, organization_id, scene_id, expires_at`,
      [id, organizationId, at],
    );
    return rows.filter((r) => r.expires_at > at).map(toEnded)[0] ?? null;
  }

  /** Revokes the scene's sessions (its deletion); returns those that were still active. */
  async revokeForScene(tx: EntityManager, sceneId: string, at: Date): Promise<EndedSession[]> {
    const [rows]: [EndedRow[], number] = await tx.query(
      `UPDATE embed_sessions SET revoked_at = $2, revoked_reason = 'scene_deleted',
              end_reported_at = CASE WHEN expires_at > $2 THEN $2::timestamptz ELSE end_reported_at END
        WHERE scene_id = $1 AND revoked_at IS NULL
        RETURNING id, organization_id, scene_id, expires_at`,
      [sceneId, at],
    );
    return rows.filter((r) => r.expires_at > at).map(toEnded);
  }

  /**
   * Revokes the organization's sessions bound to `origin` (the origin's approval was withdrawn),
   * in the caller's transaction; returns those that were still active.
   */
  async revokeForOrigin(tx: EntityManager, organizationId: string, origin: string, at: Date): Promise<EndedSession[]> {
    const [rows]: [EndedRow[], number] = await tx.query(
      `UPDATE embed_sessions SET revoked_at = $3, revoked_reason = 'revoked',
              end_reported_at = CASE WHEN expires_at > $3 THEN $3::timestamptz ELSE end_reported_at END
        WHERE organization_id = $1 AND origin = $2 AND revoked_at IS NULL
        RETURNING id, organization_id, scene_id, expires_at`,
      [organizationId, origin, at],
    );
    return rows.filter((r) => r.expires_at > at).map(toEnded);
  }

  /**
   * Claims up to `limit` sessions that expired and whose end was not reported yet, marking them
   * reported in the caller's transaction (SKIP LOCKED: replicas share the work, none twice).
   */
  async claimExpiredUnreported(tx: EntityManager, at: Date, limit: number): Promise<EndedSession[]> {
    const [rows]: [EndedRow[], number] = await tx.query(
      `UPDATE embed_sessions SET end_reported_at = $1
        WHERE id IN (SELECT id FROM embed_sessions
                      WHERE end_reported_at IS NULL AND revoked_at IS NULL AND expires_at <= $1
                      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, organization_id, scene_id, expires_at`,
      [at, limit],
    );
    return rows.map(toEnded);
  }

  /** Moves an active session's expiry; null when the session is not the organization's or no longer active. */
  async extend(organizationId: string, id: string, expiresAt: Date, at: Date): Promise<Date | null> {
    const [rows]: [{ expires_at: Date }[], number] = await this.db.query(
      `UPDATE embed_sessions es SET expires_at = $3
        WHERE es.id = $1 AND es.organization_id = $2 AND es.revoked_at IS NULL AND es.expires_at > $4
          AND NOT EXISTS (SELECT 1 FROM ${SCENE_STATE_VIEW} st WHERE st.scene_id = es.scene_id AND st.scene_deleted)
        RETURNING es.expires_at`,
      [id, organizationId, expiresAt, at],
    );
    return rows[0]?.expires_at ?? null;
  }

  /**
   * Deletes up to `limit` sessions that ended (revoked, or expired with their end reported) before
   * `before`, skipping rows other transactions hold; returns how many went.
   */
  async deleteEndedBefore(before: Date, limit: number): Promise<number> {
    const [, affected]: [unknown[], number] = await this.db.query(
      `DELETE FROM embed_sessions WHERE id IN (
         SELECT id FROM embed_sessions
          WHERE revoked_at < $1 OR (expires_at < $1 AND end_reported_at IS NOT NULL)
          LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return affected;
  }

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
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
