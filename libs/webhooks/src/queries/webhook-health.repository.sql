-- The SQL the repositories of libs/webhooks/src/webhook-health.repository.ts send to PostgreSQL, method by method, in the code's order
-- (values are the $n parameters). Written by test/service/repository-queries.service-spec.ts:
-- run `npm run queries:write` after changing a repository; `npm test` fails while they disagree.

-- WebhookHealthRepository.endpointHealth
SELECT enabled, disabled_reason, failing_since IS NOT NULL AS failing, count(*)::int AS n
  FROM webhook_endpoints WHERE deleted_at IS NULL
  GROUP BY enabled, disabled_reason, failing_since IS NOT NULL;

-- WebhookHealthRepository.oldestDue
SELECT d.next_attempt_at FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled AND e.deleted_at IS NULL
  WHERE d.status = 'pending' AND NOT d.parked AND d.next_attempt_at <= $1
  ORDER BY d.next_attempt_at
  LIMIT 1;
