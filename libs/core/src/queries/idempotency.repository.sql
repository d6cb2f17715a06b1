-- The SQL the repositories of libs/core/src/idempotency/idempotency.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- IdempotencyRepository.tryLock
SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked;

-- IdempotencyRepository.claim
WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 7)) AS locked),
  claimed AS (
  INSERT INTO idempotency_keys AS x (organization_id, key, fingerprint, result, created_at, expires_at) SELECT $2, $3, $4, $5::jsonb, $6, $7 FROM lock WHERE lock.locked
  ON CONFLICT (organization_id, key) DO UPDATE
  SET fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  WHERE x.expires_at <= EXCLUDED.created_at
  RETURNING 1)
  SELECT lock.locked, (SELECT count(*) FROM claimed)::int AS claimed, k.fingerprint, k.result, k.expires_at FROM lock
  LEFT JOIN idempotency_keys k ON k.organization_id = $2 AND k.key = $3 AND k.expires_at > $6;

-- IdempotencyRepository.find
SELECT fingerprint, result, expires_at FROM idempotency_keys WHERE organization_id = $1 AND key = $2;

-- IdempotencyRepository.delete
DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2;

-- IdempotencyRepository.insert
INSERT INTO idempotency_keys (organization_id, key, fingerprint, result, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6);

-- IdempotencyRepository.deleteExpired
DELETE FROM idempotency_keys WHERE ctid IN (
  SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED);
