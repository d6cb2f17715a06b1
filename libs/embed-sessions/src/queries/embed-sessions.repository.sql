-- The SQL the repositories of libs/embed-sessions/src/embed-sessions.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- EmbedSessionsRepository.insert
INSERT INTO embed_sessions (id, organization_id, scene_id, origin, mode, theme, secret_hash, created_at, expires_at, revoked_at, revoked_reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- EmbedSessionsRepository.revoke
UPDATE embed_sessions SET revoked_at = $3, revoked_reason = $4, end_reported_at = $3
  WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL AND end_reported_at IS NULL AND expires_at > $3
  AND NOT EXISTS (SELECT 1 FROM scene_states st WHERE st.scene_id = embed_sessions.scene_id AND st.scene_deleted)
  RETURNING id, organization_id, scene_id;

-- EmbedSessionsRepository.expireNow
UPDATE embed_sessions es SET expires_at = $3, end_reported_at = $3
  WHERE es.id = $1 AND es.organization_id = $2 AND es.revoked_at IS NULL AND es.end_reported_at IS NULL AND es.expires_at > $3
  AND NOT EXISTS (SELECT 1 FROM scene_states st WHERE st.scene_id = es.scene_id AND st.scene_deleted)
  RETURNING es.id, es.organization_id, es.scene_id;

-- EmbedSessionsRepository.revokeForScene
UPDATE embed_sessions SET revoked_at = $2, revoked_reason = $3, end_reported_at = $2
  WHERE scene_id = $1 AND revoked_at IS NULL AND end_reported_at IS NULL AND expires_at > $2
  RETURNING id, organization_id, scene_id;

-- EmbedSessionsRepository.anyActiveOfScene
SELECT 1 AS one FROM embed_sessions WHERE scene_id = $1 AND revoked_at IS NULL AND end_reported_at IS NULL AND expires_at > $2 LIMIT 1;

-- EmbedSessionsRepository.revokeForOrigin
UPDATE embed_sessions SET revoked_at = $3, revoked_reason = $4, end_reported_at = $3
  WHERE organization_id = $1 AND origin = $2 AND revoked_at IS NULL AND end_reported_at IS NULL AND expires_at > $3
  AND NOT EXISTS (SELECT 1 FROM scene_states st WHERE st.scene_id = embed_sessions.scene_id AND st.scene_deleted)
  RETURNING id, organization_id, scene_id;

-- EmbedSessionsRepository.claimExpiredUnreported
UPDATE embed_sessions SET end_reported_at = $1
  WHERE id IN (SELECT id FROM embed_sessions es
  WHERE end_reported_at IS NULL AND revoked_at IS NULL AND expires_at <= $1
  AND NOT EXISTS (SELECT 1 FROM scene_states st
  WHERE st.scene_id = es.scene_id AND st.scene_deleted_at < es.expires_at)
  ORDER BY expires_at LIMIT $2 FOR UPDATE OF es SKIP LOCKED)
  RETURNING id, organization_id, scene_id;

-- EmbedSessionsRepository.extend
UPDATE embed_sessions es SET expires_at = $3
  WHERE es.id = $1 AND es.organization_id = $2 AND es.revoked_at IS NULL AND es.end_reported_at IS NULL AND es.expires_at > $4
  AND NOT EXISTS (SELECT 1 FROM scene_states st WHERE st.scene_id = es.scene_id AND st.scene_deleted)
  RETURNING es.expires_at;

-- EmbedSessionsRepository.deleteEndedBefore
DELETE FROM embed_sessions WHERE id IN (
  SELECT id FROM embed_sessions
  WHERE revoked_at < $1 OR (expires_at < $1 AND end_reported_at IS NOT NULL)
  LIMIT $2 FOR UPDATE SKIP LOCKED);

-- EmbedSessionsRepository.transaction
-- (no statement of its own)

-- EmbedSessionsRepository.findById
SELECT es.id, es.organization_id, es.scene_id, es.origin, es.mode, es.theme, es.secret_hash, es.created_at, es.expires_at, es.revoked_at, es.revoked_reason, st.scene_id, st.scene_deleted, st.scene_status, st.scene_version, st.scene_source_asset_id, st.scene_progress, st.scene_error_code, st.scene_error_message, st.scene_error_retryable, st.scene_stage
  FROM embed_sessions es JOIN scene_states st ON st.scene_id = es.scene_id
  WHERE es.id = $1;

-- EmbedSessionsRepository.findBySecretHash
SELECT es.id, es.organization_id, es.scene_id, es.origin, es.mode, es.theme, es.secret_hash, es.created_at, es.expires_at, es.revoked_at, es.revoked_reason, st.scene_id, st.scene_deleted, st.scene_status, st.scene_version, st.scene_source_asset_id, st.scene_progress, st.scene_error_code, st.scene_error_message, st.scene_error_retryable, st.scene_stage
  FROM embed_sessions es JOIN scene_states st ON st.scene_id = es.scene_id
  WHERE es.secret_hash = $1;

-- EmbedSessionsRepository.watch
SELECT es.id, es.revoked_at, es.expires_at, st.scene_id, st.scene_deleted, st.scene_status, st.scene_version, st.scene_source_asset_id, st.scene_progress, st.scene_error_code, st.scene_error_message, st.scene_error_retryable, st.scene_stage, st.scene_edits_updated_at
  FROM embed_sessions es JOIN scene_states st ON st.scene_id = es.scene_id
  WHERE es.id = ANY($1);

-- EmbedSessionsRepository.watchScenes
SELECT st.scene_id, st.scene_deleted, st.scene_status, st.scene_version, st.scene_source_asset_id, st.scene_progress, st.scene_error_code, st.scene_error_message, st.scene_error_retryable, st.scene_stage, st.scene_edits_updated_at FROM scene_states st WHERE st.scene_id = ANY($1);
