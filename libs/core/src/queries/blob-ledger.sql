-- The SQL the repositories of libs/core/src/blob-store/blob-ledger.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- BlobLedger.open
INSERT INTO pending_blobs (key, created_at) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET created_at = EXCLUDED.created_at;

-- BlobLedger.settle
DELETE FROM pending_blobs WHERE key = $1;

-- BlobLedger.takeStale
DELETE FROM pending_blobs WHERE key IN (
  SELECT key FROM pending_blobs WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING key;
