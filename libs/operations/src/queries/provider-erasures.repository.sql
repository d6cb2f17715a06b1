-- The SQL the repositories of libs/operations/src/provider-erasures.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- ProviderErasuresRepository.addForScene
INSERT INTO provider_erasures (operation_id, organization_id, scene_id, generator, provider_job, status, attempts, next_attempt_at, created_at)
  SELECT o.id, o.organization_id, o.scene_id, o.generator, o.provider_job, 'pending', 0, $2, $2 FROM operations o
  WHERE o.scene_id = $1 AND o.provider_job IS NOT NULL AND o.generator IS NOT NULL
  ON CONFLICT DO NOTHING;

-- ProviderErasuresRepository.claimDue
UPDATE provider_erasures SET next_attempt_at = $2 WHERE operation_id IN (
  SELECT operation_id FROM provider_erasures WHERE status = 'pending' AND next_attempt_at <= $1
  ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING operation_id, scene_id, generator, provider_job, attempts;

-- ProviderErasuresRepository.done
UPDATE provider_erasures SET status = 'done', objects = $2, attempts = attempts + 1, last_error = NULL, completed_at = $3
  WHERE operation_id = $1 AND status = 'pending';

-- ProviderErasuresRepository.retryAt
UPDATE provider_erasures SET attempts = attempts + 1, next_attempt_at = $2, last_error = $3
  WHERE operation_id = $1 AND status = 'pending';

-- ProviderErasuresRepository.failed
UPDATE provider_erasures SET status = 'failed', attempts = attempts + 1, last_error = $2, completed_at = $3
  WHERE operation_id = $1 AND status = 'pending';
