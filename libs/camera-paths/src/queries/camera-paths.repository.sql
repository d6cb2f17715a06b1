-- The SQL the repositories of libs/camera-paths/src/camera-paths.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- CameraPathsRepository.transaction
-- (no statement of its own)

-- CameraPathsRepository.insert
INSERT INTO camera_paths (id, organization_id, scene_id, kind, name, duration_ms, keyframe_count, sample_count, created_at, updated_at, document) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- CameraPathsRepository.countForScene
SELECT count(*)::int AS n FROM camera_paths WHERE organization_id = $1 AND scene_id = $2;

-- CameraPathsRepository.list
SELECT id, organization_id, scene_id, kind, name, duration_ms, keyframe_count, sample_count, created_at, updated_at FROM camera_paths
  WHERE organization_id = $1 AND scene_id = $2
  ORDER BY created_at DESC, id DESC;
SELECT id, organization_id, scene_id, kind, name, duration_ms, keyframe_count, sample_count, created_at, updated_at FROM camera_paths
  WHERE organization_id = $1 AND scene_id = $2 AND kind = $3
  ORDER BY created_at DESC, id DESC;

-- CameraPathsRepository.find
SELECT id, organization_id, scene_id, kind, name, document, duration_ms, keyframe_count, sample_count, created_at, updated_at FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3;

-- CameraPathsRepository.kindOf
SELECT kind FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3;

-- CameraPathsRepository.update
UPDATE camera_paths
  SET name = $4, document = $5, duration_ms = $6, keyframe_count = $7, sample_count = $8, updated_at = $9
  WHERE id = $1 AND organization_id = $2 AND scene_id = $3
  RETURNING kind, created_at;

-- CameraPathsRepository.delete
DELETE FROM camera_paths WHERE id = $1 AND organization_id = $2 AND scene_id = $3;

-- CameraPathsRepository.deleteForScene
DELETE FROM camera_paths WHERE organization_id = $1 AND scene_id = $2;
