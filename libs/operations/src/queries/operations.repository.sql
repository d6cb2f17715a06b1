-- The SQL the repositories of libs/operations/src/operations.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- OperationsRepository.insert
INSERT INTO operations (id, organization_id, scene_id, kind, status, instruction, revert_to, version, error_code, error_message, error_retryable, progress, stage, generator, provider_job, submitted_at, provider_cancelled_at, enqueued_at, created_at, updated_at, completed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21);

-- OperationsRepository.findVisible
SELECT o.id, o.kind, o.scene_id, o.status, o.version, o.error_code, o.error_message, o.error_retryable, o.progress, o.stage, o.created_at, o.updated_at, o.completed_at, s.external_ref FROM operations o JOIN scenes s ON s.id = o.scene_id
  WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL;

-- OperationsRepository.sceneOf
SELECT scene_id FROM operations WHERE id = $1 AND organization_id = $2;

-- OperationsRepository.lockVisible
SELECT o.id, o.kind, o.scene_id, o.status, o.version, o.error_code, o.error_message, o.error_retryable, o.progress, o.stage, o.created_at, o.updated_at, o.completed_at, s.external_ref FROM operations o JOIN scenes s ON s.id = o.scene_id
  WHERE o.id = $1 AND o.organization_id = $2 AND s.deleted_at IS NULL
  FOR UPDATE OF o;

-- OperationsRepository.findVisibleIn
SELECT o.id, o.kind, o.scene_id, o.status, o.version, o.error_code, o.error_message, o.error_retryable, o.progress, o.stage, o.created_at, o.updated_at, o.completed_at, o.organization_id, s.external_ref FROM operations o JOIN scenes s ON s.id = o.scene_id
  WHERE o.id = $1 AND s.deleted_at IS NULL;

-- OperationsRepository.transaction
-- (no statement of its own)

-- OperationsRepository.whileHoldingLock
SELECT pg_try_advisory_xact_lock($1) AS locked;

-- OperationsRepository.findById
SELECT o.id, o.organization_id, o.scene_id, o.kind, o.status, o.instruction, o.revert_to, o.version, o.error_code, o.error_message, o.error_retryable, o.progress, o.stage, o.generator, o.provider_job, o.submitted_at, o.provider_cancelled_at, o.enqueued_at, o.admitted_at, o.started_at, o.created_at, o.updated_at, o.completed_at, o.scene_deleted_at FROM operations o WHERE o.id = $1;

-- OperationsRepository.lockById
SELECT id, organization_id, scene_id, kind, status, instruction, revert_to, version, error_code, error_message, error_retryable, progress, stage, generator, provider_job, submitted_at, provider_cancelled_at, enqueued_at, admitted_at, started_at, created_at, updated_at, completed_at, scene_deleted_at FROM operations WHERE id = $1 FOR UPDATE;

-- OperationsRepository.markEnqueued
UPDATE operations SET enqueued_at = $2 WHERE id = ANY($1) AND status = 'processing';

-- OperationsRepository.markSucceeded
UPDATE operations SET status = 'succeeded', version = $2, progress = 1, stage = NULL, updated_at = $3, completed_at = $3
  WHERE id = $1 AND status = 'processing' RETURNING organization_id, admitted_at, stage;

-- OperationsRepository.markFailed
UPDATE operations SET status = 'failed', error_code = $2, error_message = $3, error_retryable = $4,
  stage = CASE WHEN $6 AND admitted_at IS NOT NULL AND started_at IS NOT NULL THEN 'cancelling' END,
  updated_at = $5, completed_at = $5
  WHERE id = $1 AND status = 'processing' RETURNING organization_id, admitted_at, stage;

-- OperationsRepository.releaseSlot
UPDATE operations SET stage = NULL WHERE id = $1 AND stage = 'cancelling' RETURNING organization_id;

-- OperationsRepository.setProgress
UPDATE operations SET stage = $2, progress = GREATEST(coalesce(progress, 0), $3), updated_at = $4,
  started_at = coalesce(started_at, CASE WHEN $2 <> 'queued' THEN $4::timestamptz END)
  WHERE id = $1 AND status = 'processing';

-- OperationsRepository.recordJob
UPDATE operations SET generator = $2, provider_job = $3, submitted_at = $4, updated_at = $4,
  stage = CASE WHEN status = 'processing' THEN 'generating' ELSE stage END
  WHERE id = $1 AND (status = 'processing' OR stage = 'cancelling') AND provider_job IS NULL;

-- OperationsRepository.replaceJob
UPDATE operations SET provider_job = $2, updated_at = $3 WHERE id = $1 AND status = 'processing';

-- OperationsRepository.markProviderCancelled
UPDATE operations SET provider_cancelled_at = $2 WHERE id = $1 AND provider_cancelled_at IS NULL;

-- OperationsRepository.touch
UPDATE operations SET updated_at = $2 WHERE id = $1 AND status = 'processing';

-- OperationsRepository.stale
SELECT id, kind, enqueued_at FROM operations
  WHERE (status = 'processing' AND admitted_at IS NOT NULL AND updated_at <= $1) OR stage = 'cancelling'
  ORDER BY updated_at LIMIT $2;

-- OperationsRepository.editsOfScene
SELECT id, organization_id, scene_id, kind, status, instruction, revert_to, version, error_code, error_message, error_retryable, progress, stage, generator, provider_job, submitted_at, provider_cancelled_at, enqueued_at, admitted_at, started_at, created_at, updated_at, completed_at, scene_deleted_at FROM operations WHERE scene_id = $1 AND kind = 'scene.edit' ORDER BY created_at, id;

-- OperationsRepository.editInFlight
SELECT EXISTS (SELECT 1 FROM operations WHERE scene_id = $1 AND kind = 'scene.edit' AND status = 'processing') AS found;

-- OperationsRepository.eraseOfDeletedScene
UPDATE operations SET instruction = NULL, scene_deleted_at = $2 WHERE scene_id = $1;

-- OperationsRepository.deleteOfDeletedScenesEndedBefore
DELETE FROM operations WHERE id IN (
  SELECT id FROM operations WHERE scene_deleted_at IS NOT NULL AND completed_at < $1 AND stage IS NULL
  ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED);

-- OperationsRepository.processingOfScene
SELECT id FROM operations WHERE scene_id = $1 AND status = 'processing';
