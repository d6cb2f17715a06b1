-- The SQL the repositories of libs/core/src/blob-store/postgres-blob-store.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- PostgresBlobStore.put
INSERT INTO blobs (key, content, content_type, size_bytes) VALUES ($1, $2, $3, $4) ON CONFLICT (key) DO UPDATE SET content = EXCLUDED.content, content_type = EXCLUDED.content_type, size_bytes = EXCLUDED.size_bytes;

-- PostgresBlobStore.get
SELECT content, content_type FROM blobs WHERE key = $1;

-- PostgresBlobStore.open
SELECT content_type, size_bytes FROM blobs WHERE key = $1;
SELECT substring(content FROM $2 FOR $3) AS chunk FROM blobs WHERE key = $1;

-- PostgresBlobStore.delete
DELETE FROM blobs WHERE key = ANY($1);
