-- The SQL the repositories of libs/scenes/src/scenes.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- ScenesRepository.transaction
-- (no statement of its own)

-- ScenesRepository.insertWith
WITH w0 AS (INSERT INTO scenes (id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)) INSERT INTO operations (id, organization_id, scene_id, kind, status, instruction, revert_to, version, error_code, error_message, error_retryable, progress, stage, generator, provider_job, submitted_at, provider_cancelled_at, enqueued_at, created_at, updated_at, completed_at) VALUES ($12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32);

-- ScenesRepository.findActive
SELECT id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at, purged_at FROM scenes WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL AND status <> 'failed';

-- ScenesRepository.findActiveByExternalRef
SELECT id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at, purged_at FROM scenes WHERE organization_id = $1 AND external_ref = $2 AND deleted_at IS NULL AND status <> 'failed';

-- ScenesRepository.lockActive
SELECT id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at, purged_at FROM scenes WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL AND status <> 'failed' FOR UPDATE;

-- ScenesRepository.lockUndeleted
SELECT id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at, purged_at FROM scenes WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL FOR UPDATE;

-- ScenesRepository.lockById
SELECT id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at, purged_at FROM scenes WHERE id = $1 FOR UPDATE;

-- ScenesRepository.findById
SELECT id, organization_id, external_ref, prompt, source_asset_id, status, current_version, creating_operation_id, created_at, updated_at, deleted_at, purged_at FROM scenes WHERE id = $1;

-- ScenesRepository.markDeleted
UPDATE scenes SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL;

-- ScenesRepository.touch
UPDATE scenes SET updated_at = $2 WHERE id = $1;

-- ScenesRepository.markReady
UPDATE scenes SET status = 'ready', current_version = GREATEST(COALESCE(current_version, 0), $2), updated_at = $3 WHERE id = $1;

-- ScenesRepository.markCreationFailed
UPDATE scenes SET status = 'failed', updated_at = $2 WHERE id = $1 AND status = 'generating';

-- ScenesRepository.insertVersion
INSERT INTO scene_versions (scene_id, version, operation_id, spec, generator, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING;

-- ScenesRepository.insertArtifact
INSERT INTO scene_artifacts (scene_id, version, kind, blob_key, content_type, bytes, sha256) VALUES ($1, $2, $3, $4, $5, $6, $7);

-- ScenesRepository.artifactsOf
SELECT scene_id, version, kind, blob_key, content_type, bytes, sha256 FROM scene_artifacts WHERE scene_id = $1 AND version = $2 ORDER BY kind;

-- ScenesRepository.findVersion
SELECT scene_id, version, operation_id, spec, generator, created_at FROM scene_versions WHERE scene_id = $1 AND version = $2;

-- ScenesRepository.lockNextToPurge
SELECT id, organization_id, source_asset_id, deleted_at FROM scenes
  WHERE deleted_at IS NOT NULL AND purged_at IS NULL
  ORDER BY deleted_at, id LIMIT 1 FOR UPDATE SKIP LOCKED;

-- ScenesRepository.deleteArtifactBatch
DELETE FROM scene_artifacts WHERE (scene_id, version, kind) IN (
  SELECT scene_id, version, kind FROM scene_artifacts WHERE scene_id = $1 LIMIT $2)
  RETURNING blob_key;

-- ScenesRepository.deleteVersionBatch
DELETE FROM scene_versions WHERE (scene_id, version) IN (
  SELECT scene_id, version FROM scene_versions WHERE scene_id = $1 LIMIT $2);

-- ScenesRepository.releaseSourceImage
UPDATE scenes SET source_asset_id = NULL WHERE id = $1;

-- ScenesRepository.namesSourceImage
SELECT EXISTS (SELECT 1 FROM scenes WHERE source_asset_id = $1) AS found;

-- ScenesRepository.markPurged
UPDATE scenes SET prompt = NULL, external_ref = NULL, source_asset_id = NULL, purged_at = $2
  WHERE id = $1 AND deleted_at IS NOT NULL;
