import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { WebhookBody, WebhookEventType } from './webhook-events';

export interface WebhookEndpointRow {
  id: string;
  organizationId: string;
  url: string;
  allowLoopback: boolean;
  events: WebhookEventType[];
  enabled: boolean;
  disabledReason: 'disabled_by_partner' | 'failing' | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One attempt's outcome, kept on its delivery. `statusCode` null: no answer (refused, timeout, network). */
export interface AttemptRecord {
  attemptedAt: string;
  statusCode: number | null;
  /** Our word for what went wrong, never the receiver's body: `http_status`, `timeout`, `connection_failed`, `target_not_allowed`. */
  error: string | null;
  durationMs: number;
}

export interface DeliveryRow {
  endpointId: string;
  messageId: string;
  type: WebhookEventType;
  status: 'pending' | 'succeeded' | 'failed';
  /** Every attempt made, also those the log no longer keeps. */
  attemptCount: number;
  /** The newest attempts, oldest first (WEBHOOK_LIMITS.attemptsPerDelivery). */
  attempts: AttemptRecord[];
  nextAttemptAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  endpointId: string;
  messageId: string;
  attempts: number;
  url: string;
  allowLoopback: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  /** The body exactly as first written: every retry sends the same bytes. */
  body: string;
}

export type DeliveryOutcome = { status: 'succeeded' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

const ENDPOINT_COLUMNS = `id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed,
  previous_secret_sealed, previous_secret_expires_at, failing_since, created_at, updated_at`;

interface EndpointRecord {
  id: string;
  organization_id: string;
  url: string;
  allow_loopback: boolean;
  events: WebhookEventType[];
  enabled: boolean;
  disabled_reason: WebhookEndpointRow['disabledReason'];
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toEndpoint(r: EndpointRecord): WebhookEndpointRow {
  return {
    id: r.id,
    organizationId: r.organization_id,
    url: r.url,
    allowLoopback: r.allow_loopback,
    events: r.events,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    secretSealed: r.secret_sealed,
    previousSecretSealed: r.previous_secret_sealed,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    failingSince: r.failing_since,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface DeliveryRecord {
  endpoint_id: string;
  message_id: string;
  type: WebhookEventType;
  status: DeliveryRow['status'];
  attempts: number;
  attempts_log: AttemptRecord[];
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
}

function toDelivery(r: DeliveryRecord): DeliveryRow {
  return {
    endpointId: r.endpoint_id,
    messageId: r.message_id,
    type: r.type,
    status: r.status,
    attemptCount: r.attempts,
    attempts: r.attempts_log,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
}

/** The webhooks lib's tables: endpoints, the outbox of messages, and their deliveries. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /**
   * Serializes, until the caller's transaction ends, the creations of one organization's endpoints,
   * so that counting them and inserting one is exact under concurrency. An advisory lock, since the
   * organization's row belongs to another lib; its key is namespaced by table.
   */
  async lockOrganizationEndpoints(tx: EntityManager, organizationId: string): Promise<void> {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0))`, [organizationId]);
  }

  /** The organization's live (not deleted) endpoints, enabled or not. */
  async countEndpoints(tx: EntityManager, organizationId: string): Promise<number> {
    const [row]: { n: number }[] = await tx.query(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL`,
      [organizationId],
    );
    return row.n;
  }

  async insertEndpoint(
    tx: EntityManager,
    e: Omit<WebhookEndpointRow, 'previousSecretSealed' | 'previousSecretExpiresAt' | 'failingSince'>,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO webhook_endpoints (id, organization_id, url, allow_loopback, events, enabled, disabled_reason, secret_sealed, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [e.id, e.organizationId, e.url, e.allowLoopback, e.events, e.enabled, e.disabledReason, e.secretSealed, e.createdAt, e.updatedAt],
    );
  }

  /** By id; `after` is an endpoint id for the next page. */
  async listEndpoints(organizationId: string, limit: number, after: string | null): Promise<WebhookEndpointRow[]> {
    const rows: EndpointRecord[] = await this.db.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
        WHERE organization_id = $1 AND deleted_at IS NULL AND ($3::text IS NULL OR id > $3)
        ORDER BY id
        LIMIT $2`,
      [organizationId, limit, after],
    );
    return rows.map(toEndpoint);
  }

  async findEndpoint(organizationId: string, id: string): Promise<WebhookEndpointRow | null> {
    const rows: EndpointRecord[] = await this.db.query(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
      [id, organizationId],
    );
    return rows.length ? toEndpoint(rows[0]) : null;
  }

  /** Changes what is given; null when the endpoint is not the organization's (or deleted). */
  async updateEndpoint(
    organizationId: string,
    id: string,
    change: { url?: string; events?: WebhookEventType[]; enabled?: boolean },
    at: Date,
  ): Promise<WebhookEndpointRow | null> {
    const rows: [EndpointRecord[], number] = await this.db.query(
      `UPDATE webhook_endpoints
          SET url = coalesce($3::text, url),
              events = coalesce($4::text[], events),
              enabled = coalesce($5::boolean, enabled),
              disabled_reason = CASE WHEN $5::boolean IS NULL THEN disabled_reason WHEN $5::boolean THEN NULL ELSE 'disabled_by_partner' END,
              failing_since = CASE WHEN $5::boolean THEN NULL ELSE failing_since END,
              updated_at = $6
        WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
        RETURNING ${ENDPOINT_COLUMNS}`,
      [id, organizationId, change.url ?? null, change.events ?? null, change.enabled ?? null, at],
    );
    return rows[0][0] ? toEndpoint(rows[0][0]) : null;
  }

  async rotateSecret(
    organizationId: string,
    id: string,
    sealed: string,
    previousUntil: Date,
    at: Date,
  ): Promise<WebhookEndpointRow | null> {
    const rows: [EndpointRecord[], number] = await this.db.query(
      `UPDATE webhook_endpoints
          SET previous_secret_sealed = CASE WHEN $4::timestamptz > $5::timestamptz THEN secret_sealed END,
              previous_secret_expires_at = CASE WHEN $4::timestamptz > $5::timestamptz THEN $4::timestamptz END,
              secret_sealed = $3, updated_at = $5
        WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
        RETURNING ${ENDPOINT_COLUMNS}`,
      [id, organizationId, sealed, previousUntil, at],
    );
    return rows[0][0] ? toEndpoint(rows[0][0]) : null;
  }

  /** Deletes the endpoint and drops its pending deliveries; false when there was nothing to delete. */
  async deleteEndpoint(organizationId: string, id: string, at: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [, affected]: [unknown[], number] = await tx.query(
        `UPDATE webhook_endpoints SET deleted_at = $3, enabled = false, updated_at = $3
          WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
        [id, organizationId, at],
      );
      if (affected > 0) await tx.query(`DELETE FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
      return affected > 0;
    });
  }

  /**
   * The outbox write, inside the caller's transaction: the message and one pending delivery per
   * enabled endpoint of the organization subscribed to its type, in one statement. Nothing is
   * written when no endpoint listens.
   */
  async insertMessage(tx: EntityManager, id: string, organizationId: string, body: WebhookBody, at: Date): Promise<number> {
    const rows: unknown[] = await tx.query(
      `WITH targets AS (
         SELECT id FROM webhook_endpoints
          WHERE organization_id = $2 AND enabled AND deleted_at IS NULL AND $3 = ANY(events)
       ), message AS (
         INSERT INTO webhook_messages (id, organization_id, type, payload, created_at)
         SELECT $1, $2, $3, $4::jsonb, $5 WHERE EXISTS (SELECT 1 FROM targets)
         RETURNING id
       )
       INSERT INTO webhook_deliveries (endpoint_id, message_id, status, next_attempt_at, created_at)
       SELECT t.id, m.id, 'pending', $5, $5 FROM targets t CROSS JOIN message m
       RETURNING endpoint_id`,
      [id, organizationId, body.type, JSON.stringify(body), at],
    );
    return rows.length;
  }

  /**
   * Claims up to `limit` due deliveries of enabled endpoints for this worker: their
   * `next_attempt_at` moves to `leaseUntil`, so another worker skips them, and a worker killed
   * mid-delivery leaves them to come due again then (at-least-once). SKIP LOCKED lets replicas
   * claim side by side.
   */
  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const rows: ClaimedDeliveryRecord[] = await this.db.query(
      `WITH due AS (
         SELECT d.endpoint_id, d.message_id FROM webhook_deliveries d
           JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled AND e.deleted_at IS NULL
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1
          ORDER BY d.next_attempt_at
          LIMIT $3
          FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET next_attempt_at = $2
           FROM due WHERE d.endpoint_id = due.endpoint_id AND d.message_id = due.message_id
         RETURNING d.endpoint_id, d.message_id, d.attempts
       )
       SELECT c.endpoint_id, c.message_id, c.attempts, e.url, e.allow_loopback, e.secret_sealed,
              e.previous_secret_sealed, e.previous_secret_expires_at, m.payload::text AS body
         FROM claimed c
         JOIN webhook_endpoints e ON e.id = c.endpoint_id
         JOIN webhook_messages m ON m.id = c.message_id`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({
      endpointId: r.endpoint_id,
      messageId: r.message_id,
      attempts: r.attempts,
      url: r.url,
      allowLoopback: r.allow_loopback,
      secretSealed: r.secret_sealed,
      previousSecretSealed: r.previous_secret_sealed,
      previousSecretExpiresAt: r.previous_secret_expires_at,
      body: r.body,
    }));
  }

  /**
   * Records one attempt and what follows from it; only a pending delivery moves. The log keeps
   * the newest `keep` attempts (replays would otherwise grow it without end); `attempts` still
   * counts them all.
   */
  async recordAttempt(
    endpointId: string,
    messageId: string,
    attempt: AttemptRecord,
    outcome: DeliveryOutcome,
    at: Date,
    keep: number,
  ): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries
          SET attempts = attempts + 1,
              attempts_log = jsonb_path_query_array(attempts_log || $3::jsonb, '$[last - $keep + 1 to last]', jsonb_build_object('keep', $7::int)),
              status = $4,
              next_attempt_at = $5,
              completed_at = CASE WHEN $4 = 'pending' THEN NULL ELSE $6::timestamptz END
        WHERE endpoint_id = $1 AND message_id = $2 AND status = 'pending'`,
      [
        endpointId,
        messageId,
        JSON.stringify([attempt]),
        outcome.status,
        outcome.status === 'pending' ? outcome.nextAttemptAt : null,
        at,
        keep,
      ],
    );
  }

  /** A 2xx: the endpoint is healthy again. */
  async markEndpointHealthy(endpointId: string): Promise<void> {
    await this.db.query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [endpointId]);
  }

  /**
   * A failed attempt: the endpoint's failing streak starts now unless it already runs; once it
   * is older than `disableBefore` allows, the endpoint is disabled (`failing`). True when this
   * call disabled it.
   */
  async markEndpointFailing(endpointId: string, at: Date, disableBefore: Date): Promise<boolean> {
    const [streak]: [{ failing_since: Date; enabled: boolean }[], number] = await this.db.query(
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1 AND deleted_at IS NULL
        RETURNING failing_since, enabled`,
      [endpointId, at],
    );
    if (!streak[0]?.enabled || streak[0].failing_since > disableBefore) return false;
    const [, disabled]: [unknown[], number] = await this.db.query(
      `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = $2 WHERE id = $1 AND enabled`,
      [endpointId, at],
    );
    return disabled > 0;
  }

  /** Newest first; `before` is a message id for the next page. */
  async listDeliveries(organizationId: string, endpointId: string, limit: number, before: string | null): Promise<DeliveryRow[]> {
    const rows: DeliveryRecord[] = await this.db.query(
      `SELECT d.endpoint_id, d.message_id, m.type, d.status, d.attempts, d.attempts_log, d.next_attempt_at, d.created_at, d.completed_at
         FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
         JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $1 AND e.organization_id = $2 AND e.deleted_at IS NULL AND ($4::text IS NULL OR d.message_id < $4)
        ORDER BY d.message_id DESC
        LIMIT $3`,
      [endpointId, organizationId, limit, before],
    );
    return rows.map(toDelivery);
  }

  /** Makes a delivery due now, whatever its state; null when it is not the organization's. */
  async replay(organizationId: string, endpointId: string, messageId: string, at: Date): Promise<DeliveryRow | null> {
    const rows: [{ message_id: string }[], number] = await this.db.query(
      `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = $4, completed_at = NULL
         FROM webhook_endpoints e
        WHERE d.endpoint_id = e.id AND d.endpoint_id = $2 AND d.message_id = $3 AND e.organization_id = $1 AND e.deleted_at IS NULL
        RETURNING d.message_id`,
      [organizationId, endpointId, messageId, at],
    );
    if (!rows[0][0]) return null;
    const [delivery] = await this.db.query<DeliveryRecord[]>(
      `SELECT d.endpoint_id, d.message_id, m.type, d.status, d.attempts, d.attempts_log, d.next_attempt_at, d.created_at, d.completed_at
         FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $1 AND d.message_id = $2`,
      [endpointId, messageId],
    );
    return toDelivery(delivery);
  }

  /**
   * Deletes up to `limit` deliveries (their attempt logs with them) that ended before `before`:
   * delivered or failed for good then. Returns how many went.
   */
  async deleteDeliveriesEndedBefore(before: Date, limit: number): Promise<number> {
    return this.deleteDeliveriesBefore(`status <> 'pending'`, 'completed_at', before, limit);
  }

  /**
   * Deletes up to `limit` pending deliveries that have been due since before `before` without
   * being sent: only a disabled endpoint's wait that long (an enabled one's are claimed within a
   * second). Their wait counts as their end. Returns how many went.
   */
  async deleteDeliveriesDueBefore(before: Date, limit: number): Promise<number> {
    return this.deleteDeliveriesBefore(`status = 'pending'`, 'next_attempt_at', before, limit);
  }

  /**
   * Up to `limit` deliveries in state `which` whose `column` is before `before`, oldest first,
   * skipping rows the dispatcher holds. Both arguments are ours, never input.
   */
  private async deleteDeliveriesBefore(
    which: string,
    column: 'completed_at' | 'next_attempt_at',
    before: Date,
    limit: number,
  ): Promise<number> {
    const res: [unknown[], number] = await this.db.query(
      `DELETE FROM webhook_deliveries d USING (
         SELECT endpoint_id, message_id FROM webhook_deliveries
          WHERE ${which} AND ${column} < $1
          ORDER BY ${column} LIMIT $2 FOR UPDATE SKIP LOCKED) old
        WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id`,
      [before, limit],
    );
    return res[1];
  }

  /**
   * Deletes up to `limit` messages created before `before` that no delivery names any more (their
   * payload is all that is left of them, and nothing can list or replay it), oldest first.
   */
  async deleteOrphanMessagesBefore(before: Date, limit: number): Promise<number> {
    const res: [unknown[], number] = await this.db.query(
      `DELETE FROM webhook_messages WHERE id IN (
         SELECT m.id FROM webhook_messages m
          WHERE m.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
          ORDER BY m.created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return res[1];
  }

  /**
   * For up to `limit` endpoints after `after` (by id, deleted ones included), the message id of
   * each one's delivery just past its newest `keep`, or null when it has no more than `keep`.
   * Each reads at most `keep` + 1 entries of the primary key, newest first.
   */
  async deliveryCutoffs(after: string, limit: number, keep: number): Promise<{ endpointId: string; cutoff: string | null }[]> {
    const rows: { endpoint_id: string; cutoff: string | null }[] = await this.db.query(
      `SELECT e.id AS endpoint_id, c.message_id AS cutoff
         FROM (SELECT id FROM webhook_endpoints WHERE id > $1 ORDER BY id LIMIT $2) e
         LEFT JOIN LATERAL (
           SELECT message_id FROM webhook_deliveries d WHERE d.endpoint_id = e.id ORDER BY d.message_id DESC OFFSET $3 LIMIT 1
         ) c ON true
        ORDER BY e.id`,
      [after, limit, keep],
    );
    return rows.map((r) => ({ endpointId: r.endpoint_id, cutoff: r.cutoff }));
  }

  /**
   * Deletes up to `limit` of the endpoint's finished deliveries whose message is `cutoff` or
   * older; pending ones stay until they finish. Returns how many went.
   */
  async deleteFinishedDeliveriesUpTo(endpointId: string, cutoff: string, limit: number): Promise<number> {
    const res: [unknown[], number] = await this.db.query(
      `DELETE FROM webhook_deliveries d USING (
         SELECT endpoint_id, message_id FROM webhook_deliveries
          WHERE endpoint_id = $1 AND message_id <= $2 AND status <> 'pending'
          ORDER BY message_id LIMIT $3 FOR UPDATE SKIP LOCKED) old
        WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id`,
      [endpointId, cutoff, limit],
    );
    return res[1];
  }

  /** Deletes up to `limit` endpoints deleted (by their partner) before `before`, with their deliveries. */
  async deleteEndpointsDeletedBefore(before: Date, limit: number): Promise<number> {
    const res: [unknown[], number] = await this.db.query(
      `DELETE FROM webhook_endpoints WHERE id IN (
         SELECT id FROM webhook_endpoints WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return res[1];
  }
}

interface ClaimedDeliveryRecord {
  endpoint_id: string;
  message_id: string;
  attempts: number;
  url: string;
  allow_loopback: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  body: string;
}
