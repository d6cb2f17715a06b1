-- The SQL the repositories of libs/tenancy/src/tenancy.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- TenancyRepository.limitsOf
SELECT organization_id, max_concurrent_generations, generations_per_day, max_waiting_generations, updated_at FROM organization_limits WHERE organization_id = ANY($1);

-- TenancyRepository.saveLimits
INSERT INTO organization_limits (organization_id, max_concurrent_generations, generations_per_day, max_waiting_generations, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (organization_id) DO UPDATE SET max_concurrent_generations = EXCLUDED.max_concurrent_generations, generations_per_day = EXCLUDED.generations_per_day, max_waiting_generations = EXCLUDED.max_waiting_generations, updated_at = EXCLUDED.updated_at;

-- TenancyRepository.countStart
WITH lim AS (
  SELECT coalesce(l.generations_per_day, 2147483647) AS per_day, coalesce(l.max_waiting_generations, $4) AS max_waiting
  FROM (SELECT 1) one LEFT JOIN organization_limits l ON l.organization_id = $1),
  started AS (
  INSERT INTO usage_days AS u (organization_id, day, generations_started, edits_started)
  SELECT $1, $2, 1, $3 FROM lim WHERE lim.per_day > 0
  ON CONFLICT (organization_id, day) DO UPDATE
  SET generations_started = u.generations_started + 1, edits_started = u.edits_started + EXCLUDED.edits_started
  WHERE u.generations_started < (SELECT per_day FROM lim)
  RETURNING 1),
  queued AS (
  INSERT INTO organization_backlogs AS b (organization_id, waiting)
  SELECT $1, 1 FROM lim WHERE EXISTS (SELECT 1 FROM started)
  ON CONFLICT (organization_id) DO UPDATE SET waiting = b.waiting + 1
  WHERE b.waiting < (SELECT max_waiting FROM lim)
  RETURNING 1)
  SELECT (SELECT count(*) FROM started)::int AS started, (SELECT count(*) FROM queued)::int AS queued;

-- TenancyRepository.countEnd
WITH counted AS (
  INSERT INTO usage_days AS u (organization_id, day, generations_cancelled) VALUES ($1, $2, 1)
  ON CONFLICT (organization_id, day) DO UPDATE SET generations_cancelled = u.generations_cancelled + 1
  RETURNING 1)
  UPDATE organization_backlogs SET waiting = waiting - $3, running = running - $4, cancelling = cancelling + $5
  WHERE organization_id = $1 AND EXISTS (SELECT 1 FROM counted);

-- TenancyRepository.countReleased
UPDATE organization_backlogs SET running = running - 1, cancelling = cancelling - 1 WHERE organization_id = $1;

-- TenancyRepository.countAdmitted
UPDATE organization_backlogs b SET waiting = b.waiting - d.n, running = b.running + d.n
  FROM (SELECT unnest($1::text[]) AS organization_id, unnest($2::int[]) AS n) d
  WHERE b.organization_id = d.organization_id;

-- TenancyRepository.withWaiting
SELECT organization_id, waiting, running, cancelling FROM organization_backlogs WHERE waiting > 0;

-- TenancyRepository.backlogOf
SELECT organization_id, waiting, running, cancelling FROM organization_backlogs WHERE organization_id = $1;

-- TenancyRepository.addCost
INSERT INTO usage_days AS u (organization_id, day, provider_cost_units) VALUES ($1, $2, $3)
  ON CONFLICT (organization_id, day) DO UPDATE SET provider_cost_units = u.provider_cost_units + EXCLUDED.provider_cost_units;

-- TenancyRepository.addStoredBytes
INSERT INTO usage_days AS u (organization_id, day, stored_bytes) VALUES ($1, $2, $3)
  ON CONFLICT (organization_id, day) DO UPDATE SET stored_bytes = u.stored_bytes + EXCLUDED.stored_bytes;

-- TenancyRepository.days
SELECT organization_id, day, generations_started, edits_started, generations_succeeded, generations_failed, generations_cancelled, provider_cost_units, stored_bytes FROM usage_days WHERE organization_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day;

-- TenancyRepository.busiest
WITH ranked AS (
  SELECT organization_id, generations_started, provider_cost_units,
  row_number() OVER (ORDER BY generations_started DESC, organization_id) AS rank
  FROM usage_days WHERE day = $1)
  SELECT CASE WHEN rank <= $2 THEN organization_id END AS organization_id,
  sum(generations_started) AS started, sum(provider_cost_units) AS cost
  FROM ranked GROUP BY 1;
