-- The SQL the repositories of libs/operations/src/generation-backlog.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- GenerationBacklogRepository.admittedInProgress
SELECT organization_id, stage, count(*)::int AS n, min(created_at) AS oldest_at
  FROM operations WHERE status = 'processing' AND admitted_at IS NOT NULL
  GROUP BY organization_id, stage;

-- GenerationBacklogRepository.oldestWaitingOf
SELECT o.organization_id, w.created_at AS oldest_at
  FROM (SELECT unnest($1::text[]) AS organization_id) o
  JOIN LATERAL (
  SELECT created_at FROM operations
  WHERE organization_id = o.organization_id AND status = 'processing' AND admitted_at IS NULL
  ORDER BY created_at, id LIMIT 1) w ON true;
