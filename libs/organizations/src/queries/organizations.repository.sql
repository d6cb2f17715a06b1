-- The SQL the repositories of libs/organizations/src/organizations.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- OrganizationsRepository.createWithKey
WITH w0 AS (INSERT INTO organizations (id, name, is_test, created_at) VALUES ($1, $2, $3, $4)), w1 AS (INSERT INTO approved_origins (organization_id, origin, created_at) VALUES ($5, $6, $7)) INSERT INTO api_keys (id, organization_id, key_hash, key_prefix, created_at, revoked_at) VALUES ($8, $9, $10, $11, $12, $13);

-- OrganizationsRepository.findById
SELECT id, name, is_test, created_at FROM organizations WHERE id = $1;

-- OrganizationsRepository.list
SELECT id, name, is_test, created_at FROM organizations ORDER BY created_at;

-- OrganizationsRepository.count
SELECT count(*)::int AS count FROM organizations;

-- OrganizationsRepository.origins
SELECT origin FROM approved_origins WHERE organization_id = $1 ORDER BY origin;

-- OrganizationsRepository.hasOrigin
SELECT EXISTS (SELECT 1 FROM approved_origins WHERE organization_id = $1 AND origin = $2) AS found;

-- OrganizationsRepository.holdOrigin
SELECT 1 FROM approved_origins WHERE organization_id = $1 AND origin = $2 FOR KEY SHARE;

-- OrganizationsRepository.addOrigin
INSERT INTO approved_origins (organization_id, origin, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING;

-- OrganizationsRepository.removeOrigin
DELETE FROM approved_origins WHERE organization_id = $1 AND origin = $2;

-- OrganizationsRepository.transaction
-- (no statement of its own)

-- ApiKeysRepository.insert
INSERT INTO api_keys (id, organization_id, key_hash, key_prefix, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6);

-- ApiKeysRepository.findActiveByHash
SELECT k.id, k.organization_id, o.is_test
  FROM api_keys k JOIN organizations o ON o.id = k.organization_id
  WHERE k.key_hash = $1 AND k.revoked_at IS NULL;

-- ApiKeysRepository.findById
SELECT id, organization_id, key_hash, key_prefix, created_at, revoked_at FROM api_keys WHERE id = $1;

-- ApiKeysRepository.listForOrganization
SELECT id, organization_id, key_hash, key_prefix, created_at, revoked_at FROM api_keys WHERE organization_id = $1 ORDER BY created_at;

-- ApiKeysRepository.revoke
UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL;
