-- The SQL the repositories of libs/image-assets/src/image-assets.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- ImageAssetsRepository.transaction
-- (no statement of its own)

-- ImageAssetsRepository.insert
INSERT INTO image_assets (id, organization_id, format, width, height, size_bytes, sha256, status, blob_key, created_at, expires_at, attached_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);

-- ImageAssetsRepository.findAvailable
SELECT id, organization_id, format, width, height, size_bytes, sha256, status, blob_key, created_at, expires_at, attached_at FROM image_assets WHERE id = $1 AND organization_id = $2 AND (status = 'attached' OR expires_at > $3);

-- ImageAssetsRepository.lockAvailable
SELECT id, organization_id, format, width, height, size_bytes, sha256, status, blob_key, created_at, expires_at, attached_at FROM image_assets WHERE id = $1 AND organization_id = $2 AND (status = 'attached' OR expires_at > $3) FOR UPDATE;

-- ImageAssetsRepository.expireNow
UPDATE image_assets SET expires_at = $3
  WHERE id = $1 AND organization_id = $2 AND status = 'unattached' AND expires_at > $3
  RETURNING expires_at;

-- ImageAssetsRepository.markAttached
UPDATE image_assets SET status = 'attached', expires_at = NULL, attached_at = COALESCE(attached_at, $2) WHERE id = $1;

-- ImageAssetsRepository.lockById
SELECT id, blob_key FROM image_assets WHERE id = $1 FOR UPDATE;

-- ImageAssetsRepository.findById
SELECT id, organization_id, format, width, height, size_bytes, sha256, status, blob_key, created_at, expires_at, attached_at FROM image_assets WHERE id = $1;

-- ImageAssetsRepository.lockExpiredBatch
SELECT id, blob_key FROM image_assets
  WHERE status = 'unattached' AND expires_at <= $1
  ORDER BY expires_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED;

-- ImageAssetsRepository.deleteByIds
DELETE FROM image_assets WHERE id = ANY($1);
