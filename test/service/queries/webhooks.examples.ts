import { WebhookAttempt } from '@app/webhooks/webhook-delivery.entity';
import { WebhookBody, WebhookEventType } from '@app/webhooks/webhook-events';
import { WebhookHealthRepository } from '@app/webhooks/webhook-health.repository';
import { WebhookEndpoint, WebhooksRepository } from '@app/webhooks/webhooks.repository';
import { randomUUID } from 'node:crypto';
import { webhookEndpoint } from '../../factories/webhook.factory';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

/**
 * What these examples make, all of the fixtures' organization: endpoint `a` receives every
 * delivery and keeps them, `b` is deleted with its pending delivery, `c` (no delivery) fails
 * until it is disabled; three messages (one `insertMessage`, two `insertMessages`).
 */
const ids = {
  a: `whe_q_${randomUUID()}`,
  b: `whe_q_${randomUUID()}`,
  c: `whe_q_${randomUUID()}`,
  succeeded: `msg_q_${randomUUID()}`,
  ended: [`msg_q_${randomUUID()}`, `msg_q_${randomUUID()}`] as const,
};

function endpoint(f: Fixtures, id: string, url: string, events: WebhookEventType[]): WebhookEndpoint {
  return webhookEndpoint(f.organizationId, id, url, events, f.now);
}

/** A body as WebhookOutbox.emit builds one. */
function body(f: Fixtures, type: WebhookEventType, data: Record<string, unknown>): WebhookBody {
  return { type, timestamp: f.now.toISOString(), data };
}

/** An attempt as WebhookSender reports one. */
function attempt(f: Fixtures, statusCode: number | null, error: string | null): WebhookAttempt {
  return { attemptedAt: f.now.toISOString(), statusCode, error, durationMs: 42 };
}

const later = (f: Fixtures, ms: number) => new Date(f.now.getTime() + ms);

export const webhooksExamples: RepositoryExamples<unknown>[] = [
  examplesOf<WebhooksRepository>({
    type: WebhooksRepository,
    make: (db) => new WebhooksRepository(db),
    calls: {
      transaction: (r) => r.transaction(async () => undefined),
      lockOrganizationEndpoints: (r, tx, f) => r.lockOrganizationEndpoints(tx, f.organizationId),
      countEndpoints: (r, tx, f) => r.countEndpoints(tx, f.organizationId),
      insertEndpoint: async (r, tx, f) => {
        await r.insertEndpoint(
          tx,
          endpoint(f, ids.a, 'https://hooks.example.com/a', ['operation.succeeded', 'operation.failed', 'embed_session.ended']),
        );
        await r.insertEndpoint(tx, endpoint(f, ids.b, 'https://hooks.example.com/b', ['operation.succeeded']));
        await r.insertEndpoint(tx, endpoint(f, ids.c, 'https://hooks.example.com/c', ['scene.deleted']));
      },
      // The first page, then the next one after a cursor (its own statement: one more condition).
      listEndpoints: async (r, _tx, f) => {
        await r.listEndpoints(f.organizationId, 51, null);
        await r.listEndpoints(f.organizationId, 51, ids.a);
      },
      // On the pool (get, update's first read) and in the caller's transaction (update, under the lock): the same statement.
      findEndpoint: async (r, tx, f) => {
        await r.findEndpoint(f.organizationId, ids.a);
        await r.findEndpoint(f.organizationId, ids.a, tx);
      },
      findOverlappingEndpoint: (r, tx, f) =>
        r.findOverlappingEndpoint(tx, f.organizationId, 'https://hooks.example.com/a', ['operation.succeeded', 'operation.failed'], ids.a),
      updateEndpoint: (r, tx, f) =>
        r.updateEndpoint(
          tx,
          f.organizationId,
          ids.a,
          { url: 'https://hooks.example.com/a', events: ['operation.succeeded', 'operation.failed', 'embed_session.ended'], enabled: true },
          f.now,
        ),
      rotateSecret: (r, _tx, f) => r.rotateSecret(f.organizationId, ids.a, 'v1.sealed-secret-2', later(f, 86_400_000), f.now),
      anyListener: (r, tx, f) => r.anyListener(tx, f.organizationId, 'embed_session.ended'),
      // To `a` and `b`.
      insertMessage: (r, tx, f) =>
        r.insertMessage(tx, ids.succeeded, f.organizationId, body(f, 'operation.succeeded', { operationId: f.operationId }), f.now),
      // To `a`.
      insertMessages: (r, tx, f) =>
        r.insertMessages(
          tx,
          f.organizationId,
          'embed_session.ended',
          ids.ended.map((id, i) => ({ id, body: body(f, 'embed_session.ended', { embedSessionId: `es_q_${i}`, reason: 'revoked' }) })),
          f.now,
        ),
      listDeliveries: (r, _tx, f) => r.listDeliveries(f.organizationId, ids.a, 51, null),
      // Claims all four (due at f.now).
      claimDue: (r, _tx, f) => r.claimDue(f.now, later(f, 35_000), 10),
      // `a`'s first two delivered or failed for good (then finished), its third failed once (still pending).
      recordAttempt: async (r, _tx, f) => {
        const claim = (messageId: string) => ({ endpointId: ids.a, messageId, leaseUntil: later(f, 35_000) });
        await r.recordAttempt(claim(ids.succeeded), attempt(f, 204, null), { status: 'succeeded' }, f.now, 20);
        await r.recordAttempt(claim(ids.ended[0]), attempt(f, 500, 'http_status'), { status: 'failed' }, f.now, 20);
        await r.recordAttempt(
          claim(ids.ended[1]),
          attempt(f, null, 'timeout'),
          { status: 'pending', nextAttemptAt: later(f, 60_000) },
          f.now,
          20,
        );
      },
      markEndpointHealthy: (r) => r.markEndpointHealthy(ids.a),
      // Failing since f.now, which is before `disableBefore`: `c` is disabled.
      markEndpointFailing: (r, _tx, f) => r.markEndpointFailing(ids.c, f.now, later(f, 1)),
      replay: (r, _tx, f) => r.replay(f.organizationId, ids.a, ids.succeeded, f.now),
      // Found, with a pending delivery: both statements.
      deleteEndpoint: (r, _tx, f) => r.deleteEndpoint(f.organizationId, ids.b, f.now),
      deliveryCutoffs: (r) => r.deliveryCutoffs('', 100, 10_000),
      deleteFinishedDeliveriesUpTo: (r) => r.deleteFinishedDeliveriesUpTo(ids.a, [...ids.ended].sort()[1], 1000),
      deleteDeliveriesEndedBefore: (r, _tx, f) => r.deleteDeliveriesEndedBefore(later(f, 3_600_000), 1000),
      deleteDeliveriesDueBefore: (r, _tx, f) => r.deleteDeliveriesDueBefore(later(f, 3_600_000), 1000),
      deleteOrphanMessagesBefore: (r, _tx, f) => r.deleteOrphanMessagesBefore(later(f, 3_600_000), 1000),
      deleteEndpointsDeletedBefore: (r, _tx, f) => r.deleteEndpointsDeletedBefore(later(f, 3_600_000), 1000),
    },
  }),
  examplesOf<WebhookHealthRepository>({
    type: WebhookHealthRepository,
    make: (db) => new WebhookHealthRepository(db),
    calls: {
      endpointHealth: (r) => r.endpointHealth(),
      oldestDue: (r, _tx, f) => r.oldestDue(later(f, 3_600_000)),
    },
  }),
];
