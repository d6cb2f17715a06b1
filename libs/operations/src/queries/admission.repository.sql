-- The SQL the repositories of libs/operations/src/admission.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- AdmissionRepository.inTurn
SELECT pg_try_advisory_xact_lock($1) AS locked;

-- AdmissionRepository.admittedNotStarted
SELECT count(*)::int AS n FROM operations WHERE status = 'processing' AND admitted_at IS NOT NULL AND stage = 'queued';

-- AdmissionRepository.turnsOf
SELECT o.organization_id, t.last_turn, w.created_at AS oldest_at
  FROM (SELECT unnest($1::text[]) AS organization_id) o
  LEFT JOIN admission_turns t ON t.organization_id = o.organization_id
  LEFT JOIN LATERAL (
  SELECT created_at FROM operations
  WHERE organization_id = o.organization_id AND status = 'processing' AND admitted_at IS NULL
  ORDER BY created_at, id LIMIT 1) w ON true;

-- AdmissionRepository.oldestWaiting
SELECT id, organization_id, kind, revert_to FROM operations
  WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NULL
  ORDER BY created_at, id LIMIT $2;

-- AdmissionRepository.admit
SELECT id, organization_id, kind, revert_to FROM operations
  WHERE organization_id = $1 AND status = 'processing' AND admitted_at IS NULL
  ORDER BY created_at, id LIMIT $2;
UPDATE operations SET admitted_at = $2, updated_at = $2
  WHERE id = ANY($1) AND status = 'processing' AND admitted_at IS NULL RETURNING id;
INSERT INTO admission_turns (organization_id, last_turn) VALUES ($1, nextval('admission_turn_seq'))
  ON CONFLICT (organization_id) DO UPDATE SET last_turn = EXCLUDED.last_turn;
