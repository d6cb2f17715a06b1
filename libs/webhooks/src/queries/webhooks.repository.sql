-- The SQL the repositories of libs/webhooks/src/webhooks.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- WebhooksRepository.transaction
-- (no statement of its own)

-- WebhooksRepository.lockOrganizationEndpoints
SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0));

-- WebhooksRepository.countEndpoints
SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL;

-- WebhooksRepository.insertEndpoint
INSERT INTO webhook_endpoints (id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13);

-- WebhooksRepository.listEndpoints
SELECT id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at FROM webhook_endpoints
  WHERE organization_id = $1 AND deleted_at IS NULL
  ORDER BY id LIMIT $2;
SELECT id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at FROM webhook_endpoints
  WHERE organization_id = $1 AND deleted_at IS NULL AND id > $3
  ORDER BY id LIMIT $2;

-- WebhooksRepository.findEndpoint
SELECT id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL;

-- WebhooksRepository.findOverlappingEndpoint
SELECT id FROM webhook_endpoints
  WHERE organization_id = $1 AND deleted_at IS NULL AND url = $2 AND events && $3::text[] AND id IS DISTINCT FROM $4
  ORDER BY id LIMIT 1;

-- WebhooksRepository.updateEndpoint
UPDATE webhook_endpoints
  SET url = coalesce($3::text, url),
  events = coalesce($4::text[], events),
  enabled = coalesce($5::boolean, enabled),
  disabled_reason = CASE WHEN $5::boolean IS NULL THEN disabled_reason WHEN $5::boolean THEN NULL ELSE 'disabled_by_partner' END,
  failing_since = CASE WHEN $5::boolean THEN NULL ELSE failing_since END,
  updated_at = $6
  WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
  RETURNING id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at;
UPDATE webhook_deliveries SET parked = $2 WHERE endpoint_id = $1 AND status = 'pending' AND parked <> $2;

-- WebhooksRepository.rotateSecret
UPDATE webhook_endpoints
  SET previous_secret_sealed = CASE WHEN $4::timestamptz > $5::timestamptz THEN secret_sealed END,
  previous_secret_expires_at = CASE WHEN $4::timestamptz > $5::timestamptz THEN $4::timestamptz END,
  secret_sealed = $3, updated_at = $5
  WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
  RETURNING id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at;

-- WebhooksRepository.deleteEndpoint
UPDATE webhook_endpoints SET deleted_at = $3, enabled = false, updated_at = $3
  WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL;
DELETE FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending';

-- WebhooksRepository.insertMessage
WITH targets AS (
  SELECT id FROM webhook_endpoints
  WHERE organization_id = $1 AND enabled AND deleted_at IS NULL AND $2 = ANY(events)
  ), items AS (
  SELECT unnest($4::text[]) AS id, unnest($5::text[]) AS payload
  ), message AS (
  INSERT INTO webhook_messages (id, organization_id, type, payload, created_at)
  SELECT i.id, $1, $2, i.payload::jsonb, $3 FROM items i WHERE EXISTS (SELECT 1 FROM targets)
  RETURNING id
  )
  INSERT INTO webhook_deliveries (endpoint_id, message_id, status, next_attempt_at, created_at)
  SELECT t.id, m.id, 'pending', $3, $3 FROM targets t CROSS JOIN message m;

-- WebhooksRepository.anyListener
SELECT 1 FROM webhook_endpoints WHERE organization_id = $1 AND enabled AND deleted_at IS NULL AND $2 = ANY(events) LIMIT 1;

-- WebhooksRepository.insertMessages
WITH targets AS (
  SELECT id FROM webhook_endpoints
  WHERE organization_id = $1 AND enabled AND deleted_at IS NULL AND $2 = ANY(events)
  ), items AS (
  SELECT unnest($4::text[]) AS id, unnest($5::text[]) AS payload
  ), message AS (
  INSERT INTO webhook_messages (id, organization_id, type, payload, created_at)
  SELECT i.id, $1, $2, i.payload::jsonb, $3 FROM items i WHERE EXISTS (SELECT 1 FROM targets)
  RETURNING id
  )
  INSERT INTO webhook_deliveries (endpoint_id, message_id, status, next_attempt_at, created_at)
  SELECT t.id, m.id, 'pending', $3, $3 FROM targets t CROSS JOIN message m;

-- WebhooksRepository.claimDue
WITH due AS (
  SELECT d.endpoint_id, d.message_id FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled AND e.deleted_at IS NULL
  WHERE d.status = 'pending' AND NOT d.parked AND d.next_attempt_at <= $1
  ORDER BY d.next_attempt_at
  LIMIT $3
  FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
  UPDATE webhook_deliveries d SET next_attempt_at = $2
  FROM due WHERE d.endpoint_id = due.endpoint_id AND d.message_id = due.message_id
  RETURNING d.endpoint_id, d.message_id, d.attempts
  )
  SELECT c.*, e.url, e.allow_loopback, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, m.payload::text AS body
  FROM claimed c
  JOIN webhook_endpoints e ON e.id = c.endpoint_id
  JOIN webhook_messages m ON m.id = c.message_id;

-- WebhooksRepository.recordAttempt
WITH cur AS (
  SELECT endpoint_id, message_id, (status = 'pending' AND next_attempt_at = $8) AS held FROM webhook_deliveries
  WHERE endpoint_id = $1 AND message_id = $2
  FOR UPDATE
  )
  UPDATE webhook_deliveries d
  SET attempts = d.attempts + 1,
  attempts_log = jsonb_path_query_array(d.attempts_log || $3::jsonb, '$[last - $keep + 1 to last]', jsonb_build_object('keep', $7::int)),
  status = CASE WHEN cur.held THEN $4 ELSE d.status END,
  next_attempt_at = CASE WHEN cur.held THEN $5 ELSE d.next_attempt_at END,
  completed_at = CASE WHEN NOT cur.held THEN d.completed_at WHEN $4 = 'pending' THEN NULL ELSE $6::timestamptz END
  FROM cur
  WHERE d.endpoint_id = cur.endpoint_id AND d.message_id = cur.message_id
  RETURNING cur.held;

-- WebhooksRepository.markEndpointHealthy
UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL;

-- WebhooksRepository.markEndpointFailing
UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1 AND deleted_at IS NULL
  RETURNING failing_since, enabled;
WITH off AS (
  UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = $2 WHERE id = $1 AND enabled RETURNING id
  ), parked AS (
  UPDATE webhook_deliveries d SET parked = true FROM off WHERE d.endpoint_id = off.id AND d.status = 'pending' AND NOT d.parked
  )
  SELECT EXISTS (SELECT 1 FROM off) AS disabled;

-- WebhooksRepository.listDeliveries
SELECT d.endpoint_id, d.message_id, d.status, d.attempts, d.attempts_log, d.next_attempt_at, d.parked, d.created_at, d.completed_at, m.type
  FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.id = d.endpoint_id
  JOIN webhook_messages m ON m.id = d.message_id
  WHERE d.endpoint_id = $1 AND e.organization_id = $2 AND e.deleted_at IS NULL AND ($4::text IS NULL OR d.message_id < $4)
  ORDER BY d.message_id DESC
  LIMIT $3;

-- WebhooksRepository.replay
UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = $4, completed_at = NULL, parked = NOT e.enabled
  FROM webhook_endpoints e, webhook_messages m
  WHERE d.endpoint_id = e.id AND m.id = d.message_id
  AND d.endpoint_id = $2 AND d.message_id = $3 AND e.organization_id = $1 AND e.deleted_at IS NULL
  RETURNING d.endpoint_id, d.message_id, d.status, d.attempts, d.attempts_log, d.next_attempt_at, d.parked, d.created_at, d.completed_at, m.type;

-- WebhooksRepository.deleteDeliveriesEndedBefore
DELETE FROM webhook_deliveries d USING (
  SELECT endpoint_id, message_id FROM webhook_deliveries
  WHERE status <> 'pending' AND completed_at < $1
  ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED) old
  WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id;

-- WebhooksRepository.deleteDeliveriesDueBefore
DELETE FROM webhook_deliveries d USING (
  SELECT endpoint_id, message_id FROM webhook_deliveries
  WHERE status = 'pending' AND next_attempt_at < $1
  ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) old
  WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id;

-- WebhooksRepository.deleteOrphanMessagesBefore
DELETE FROM webhook_messages WHERE id IN (
  SELECT m.id FROM webhook_messages m
  WHERE m.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
  ORDER BY m.created_at LIMIT $2 FOR UPDATE SKIP LOCKED);

-- WebhooksRepository.deliveryCutoffs
SELECT e.id AS endpoint_id, c.message_id AS cutoff
  FROM (SELECT id FROM webhook_endpoints WHERE id > $1 ORDER BY id LIMIT $2) e
  LEFT JOIN LATERAL (
  SELECT message_id FROM webhook_deliveries d WHERE d.endpoint_id = e.id ORDER BY d.message_id DESC OFFSET $3 LIMIT 1
  ) c ON true
  ORDER BY e.id;

-- WebhooksRepository.deleteFinishedDeliveriesUpTo
DELETE FROM webhook_deliveries d USING (
  SELECT endpoint_id, message_id FROM webhook_deliveries
  WHERE endpoint_id = $1 AND message_id <= $2 AND status <> 'pending'
  ORDER BY message_id LIMIT $3 FOR UPDATE SKIP LOCKED) old
  WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id;

-- WebhooksRepository.deleteEndpointsDeletedBefore
DELETE FROM webhook_endpoints WHERE id IN (
  SELECT id FROM webhook_endpoints WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED);
