import { entityColumns, rawInsert, rawQuery, ResultRow, Tx, runInTransaction } from '@app/core';
import {
  SCENE_DELETED_AT,
  SCENE_EDITS_UPDATED_AT,
  SCENE_STATE_VIEW,
  SceneState,
  SceneStateRow,
  sceneStateColumns,
  toSceneState,
} from '@app/operations';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EmbedSessionEntity } from './embed-session.entity';

/** A session with the state of its scene, as the studio needs it on every call. */
export interface SessionWithScene {
  session: EmbedSessionEntity;
  scene: SceneState;
}

/** A session whose end is to be announced. */
export type EndedSession = Pick<EmbedSessionEntity, 'id' | 'organizationId' | 'sceneId'>;

/** What an ending session's statements return: its announcement. */
const ENDING = ['id', 'organizationId', 'sceneId'] as const satisfies readonly (keyof EmbedSessionEntity)[];

/** In an `UPDATE embed_sessions` without an alias: the session's scene is not deleted. */
const SCENE_NOT_DELETED = `AND NOT EXISTS (SELECT 1 FROM ${SCENE_STATE_VIEW} st WHERE st.scene_id = embed_sessions.scene_id AND st.scene_deleted)`;

/**
 * Still active at the time in parameter `at` and its end not reported: what a revocation ends.
 * One text for the revocations and for the deletion's check whether its follow-up has work, so
 * the check can never skip a session the follow-up would have ended.
 */
const ACTIVE_UNREPORTED = (at: string): string => `revoked_at IS NULL AND end_reported_at IS NULL AND expires_at > ${at}`;

type Ending = Pick<EmbedSessionEntity, (typeof ENDING)[number]>;

function toEnded({ id, organizationId, sceneId }: Ending): EndedSession {
  return { id, organizationId, sceneId };
}

/** What the studio's event streams watch, per scene: its state and the last change to its edit history. */
export interface WatchedScene {
  scene: SceneState;
  editsUpdatedAt: Date | null;
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

  async insert(session: EmbedSessionEntity, tx?: Tx): Promise<void> {
    await rawInsert(tx ?? this.db, EmbedSessionEntity, session);
  }

  /**
   * Revokes one session of the organization, in the caller's transaction. Returns the session
   * when this call revoked it (it was active: its end is news), else null.
   */
  async revoke(tx: Tx, organizationId: string, id: string, at: Date): Promise<EndedSession | null> {
    const [revoked] = await this.revokeActive(tx, 'id = $1 AND organization_id = $2', [id, organizationId], 'revoked', at);
    return revoked ?? null;
  }

  /**
   * Test mode's clock: an active session of the organization expires now, its end reported in the
   * caller's transaction (the caller announces it), so the sweep never announces it again. null
   * when no such session is active (unknown, foreign, expired, revoked, its scene deleted).
   */
  async expireNow(tx: Tx, organizationId: string, id: string, at: Date): Promise<EndedSession | null> {
    const ending = entityColumns(tx, EmbedSessionEntity, { alias: 'es', only: ENDING });
    const [expired] = await ending.rows(
      tx,
      `UPDATE embed_sessions es SET expires_at = $3, end_reported_at = $3
        WHERE es.id = $1 AND es.organization_id = $2 AND es.revoked_at IS NULL AND es.end_reported_at IS NULL AND es.expires_at > $3
          AND NOT EXISTS (SELECT 1 FROM ${SCENE_STATE_VIEW} st WHERE st.scene_id = es.scene_id AND st.scene_deleted)
        RETURNING ${ending.sql}`,
      [id, organizationId, at],
    );
    return expired ? toEnded(expired) : null;
  }

  /**
   * Revokes the scene's sessions (its deletion at `at`), in the caller's transaction, and returns
   * those it revoked. Runs after the deletion committed, and again from the purge: a second run
   * finds none.
   */
  revokeForScene(tx: Tx, sceneId: string, at: Date): Promise<EndedSession[]> {
    return this.revokeActive(tx, 'scene_id = $1', [sceneId], 'scene_deleted', at);
  }

  /** Whether `revokeForScene(tx, sceneId, at)` would find a session to revoke (one probe of the scene's active sessions). */
  async anyActiveOfScene(tx: Tx, sceneId: string, at: Date): Promise<boolean> {
    const { rows } = await rawQuery<{ one: number }>(
      tx,
      `SELECT 1 AS one FROM embed_sessions WHERE scene_id = $1 AND ${ACTIVE_UNREPORTED('$2')} LIMIT 1`,
      [sceneId, at],
    );
    return rows.length > 0;
  }

  /**
   * Revokes the organization's sessions bound to `origin` (the origin's approval was withdrawn),
   * in the caller's transaction, and returns those it revoked.
   */
  revokeForOrigin(tx: Tx, organizationId: string, origin: string, at: Date): Promise<EndedSession[]> {
    return this.revokeActive(tx, 'organization_id = $1 AND origin = $2', [organizationId, origin], 'revoked', at);
  }

  /**
   * Revokes, for `reason` at `at`, the sessions `scope` selects (its parameters are `params`) that
   * are still active and whose end nobody reported, and reports their end in the same statement;
   * returns them. So every end is announced once, whichever revocation (or the expiry sweep) comes
   * first. A session that had expired by `at` is left as it is: the sweep reports it as expired
   * (revoked, the sweep would pass it by and its end would never be announced). So is, for any
   * other reason than `scene_deleted`, a session whose scene is deleted: it ended with the
   * deletion, whose follow-up (a job that may run a moment later) reports it as `scene_deleted`.
   */
  private async revokeActive(
    tx: Tx,
    scope: string,
    params: readonly unknown[],
    reason: NonNullable<EmbedSessionEntity['revokedReason']>,
    at: Date,
  ): Promise<EndedSession[]> {
    const ending = entityColumns(tx, EmbedSessionEntity, { only: ENDING });
    const [atParam, reasonParam] = [`$${params.length + 1}`, `$${params.length + 2}`];
    const sessions = await ending.rows(
      tx,
      `UPDATE embed_sessions SET revoked_at = ${atParam}, revoked_reason = ${reasonParam}, end_reported_at = ${atParam}
        WHERE ${scope} AND ${ACTIVE_UNREPORTED(atParam)}
        ${reason === 'scene_deleted' ? '' : SCENE_NOT_DELETED}
        RETURNING ${ending.sql}`,
      [...params, at, reason],
    );
    return sessions.map(toEnded);
  }

  /**
   * Claims up to `limit` sessions that expired and whose end was not reported yet, marking them
   * reported in the caller's transaction (SKIP LOCKED: replicas share the work, none twice). A
   * session still active when its scene was deleted is left alone: it ended with the deletion,
   * whose follow-up (`revokeForScene` from the deletion's time, a job that may run a moment later)
   * reports it as `scene_deleted`, even if it has expired by then.
   */
  async claimExpiredUnreported(tx: Tx, at: Date, limit: number): Promise<EndedSession[]> {
    const ending = entityColumns(tx, EmbedSessionEntity, { only: ENDING });
    const sessions = await ending.rows(
      tx,
      `UPDATE embed_sessions SET end_reported_at = $1
        WHERE id IN (SELECT id FROM embed_sessions es
                      WHERE end_reported_at IS NULL AND revoked_at IS NULL AND expires_at <= $1
                        AND NOT EXISTS (SELECT 1 FROM ${SCENE_STATE_VIEW} st
                                         WHERE st.scene_id = es.scene_id AND st.${SCENE_DELETED_AT} < es.expires_at)
                      ORDER BY expires_at LIMIT $2 FOR UPDATE OF es SKIP LOCKED)
        RETURNING ${ending.sql}`,
      [at, limit],
    );
    return sessions.map(toEnded);
  }

  /**
   * Moves an active session's expiry; null when the session is not the organization's or no longer
   * active. A session whose end was reported stays ended even if `at` (read before this ran) is
   * before its expiry: the sweep may have announced it meanwhile, and a revived session could
   * never be revoked or announced again (every end requires `end_reported_at IS NULL`).
   */
  async extend(organizationId: string, id: string, expiresAt: Date, at: Date): Promise<Date | null> {
    const expiry = entityColumns(this.db, EmbedSessionEntity, { alias: 'es', only: ['expiresAt'] });
    const [extended] = await expiry.rows(
      this.db,
      `UPDATE embed_sessions es SET expires_at = $3
        WHERE es.id = $1 AND es.organization_id = $2 AND es.revoked_at IS NULL AND es.end_reported_at IS NULL AND es.expires_at > $4
          AND NOT EXISTS (SELECT 1 FROM ${SCENE_STATE_VIEW} st WHERE st.scene_id = es.scene_id AND st.scene_deleted)
        RETURNING ${expiry.sql}`,
      [id, organizationId, expiresAt, at],
    );
    return extended?.expiresAt ?? null;
  }

  /**
   * Deletes up to `limit` sessions that ended (revoked, or expired with their end reported) before
   * `before`, skipping rows other transactions hold; returns how many went.
   */
  async deleteEndedBefore(before: Date, limit: number): Promise<number> {
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM embed_sessions WHERE id IN (
         SELECT id FROM embed_sessions
          WHERE revoked_at < $1 OR (expires_at < $1 AND end_reported_at IS NOT NULL)
          LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return affected;
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }

  findById(id: string): Promise<SessionWithScene | null> {
    return this.findOne(`es.id = $1`, [id]);
  }

  findBySecretHash(hash: string): Promise<SessionWithScene | null> {
    return this.findOne(`es.secret_hash = $1`, [hash]);
  }

  private async findOne(where: string, params: unknown[]): Promise<SessionWithScene | null> {
    // Every session column the studio reads: all but the bookkeeping of its end's announcement.
    const session = entityColumns(this.db, EmbedSessionEntity, { alias: 'es', except: ['endReportedAt'] });
    const { rows } = await rawQuery<ResultRow & SceneStateRow>(
      this.db,
      `SELECT ${session.sql}, ${sceneStateColumns('st')}
         FROM embed_sessions es JOIN ${SCENE_STATE_VIEW} st ON st.scene_id = es.scene_id
        WHERE ${where}`,
      params,
    );
    return rows.length === 0 ? null : { session: session.toEntity(rows[0]), scene: toSceneState(rows[0]) };
  }

  /** The watched state of many sessions in one query (the studio: streams opening, news, its sweep). */
  async watch(ids: string[]): Promise<WatchedState[]> {
    if (ids.length === 0) return [];
    const session = entityColumns(this.db, EmbedSessionEntity, { alias: 'es', only: ['id', 'revokedAt', 'expiresAt'] });
    const { rows } = await rawQuery<ResultRow & SceneStateRow & { [SCENE_EDITS_UPDATED_AT]: Date | null }>(
      this.db,
      `SELECT ${session.sql}, ${sceneStateColumns('st')}, st.${SCENE_EDITS_UPDATED_AT}
         FROM embed_sessions es JOIN ${SCENE_STATE_VIEW} st ON st.scene_id = es.scene_id
        WHERE es.id = ANY($1)`,
      [ids],
    );
    return rows.map((r) => ({ ...session.toEntity(r), scene: toSceneState(r), editsUpdatedAt: r[SCENE_EDITS_UPDATED_AT] }));
  }

  /** The watched state of many scenes in one query, read from the scenes' published view. */
  async watchScenes(sceneIds: string[]): Promise<WatchedScene[]> {
    if (sceneIds.length === 0) return [];
    const { rows } = await rawQuery<ResultRow & SceneStateRow & { [SCENE_EDITS_UPDATED_AT]: Date | null }>(
      this.db,
      `SELECT ${sceneStateColumns('st')}, st.${SCENE_EDITS_UPDATED_AT} FROM ${SCENE_STATE_VIEW} st WHERE st.scene_id = ANY($1)`,
      [sceneIds],
    );
    return rows.map((r) => ({ scene: toSceneState(r), editsUpdatedAt: r[SCENE_EDITS_UPDATED_AT] }));
  }
}
