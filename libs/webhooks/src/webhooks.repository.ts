import { entityColumns, rawInsert, rawQuery, ResultRow, Tx, runInTransaction } from '@app/core';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookAttempt, WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookBody, WebhookEventType } from './webhook-events';
import { WebhookMessageEntity } from './webhook-message.entity';

/** A live endpoint as the partner API shows and changes it (not its deletion time). */
export type WebhookEndpoint = Omit<WebhookEndpointEntity, 'deletedAt'>;

/** A delivery with its message's event type: an entry of the delivery log. */
export type WebhookDeliveryWithType = WebhookDeliveryEntity & Pick<WebhookMessageEntity, 'type'>;

/** A claimed delivery with what sending it needs. */
export type ClaimedDelivery = Pick<WebhookDeliveryEntity, 'endpointId' | 'messageId' | 'attempts'> &
  Pick<WebhookEndpointEntity, 'url' | 'allowLoopback' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'> & {
    /** The body exactly as first written: every retry sends the same bytes. */
    body: string;
    /** The claim's lease (its `next_attempt_at` while claimed): the attempt decides the delivery's state only while it holds. */
    leaseUntil: Date;
  };

export type DeliveryOutcome = { status: 'succeeded' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };

/** The webhooks lib's tables: endpoints, the outbox of messages, and their deliveries. */
@Injectable()
export class WebhooksRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Every endpoint column but its deletion time (deleted endpoints are never shown). */
  private get endpointColumns() {
    return entityColumns(this.db, WebhookEndpointEntity, { except: ['deletedAt'] });
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, work);
  }

  /**
   * Serializes, until the caller's transaction ends, the creations of one organization's endpoints
   * and the changes of their URL or events, so that counting them and inserting one, and finding
   * no other endpoint of the same URL and events, are exact under concurrency. An advisory lock, since the
   * organization's row belongs to another lib; its key is namespaced by table.
   */
  async lockOrganizationEndpoints(tx: Tx, organizationId: string): Promise<void> {
    await rawQuery(tx, `SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0))`, [organizationId]);
  }

  /** The organization's live (not deleted) endpoints, enabled or not. */
  async countEndpoints(tx: Tx, organizationId: string): Promise<number> {
    const { rows } = await rawQuery<{ n: number }>(
      tx,
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE organization_id = $1 AND deleted_at IS NULL`,
      [organizationId],
    );
    return rows[0].n;
  }

  async insertEndpoint(tx: Tx, e: WebhookEndpoint): Promise<void> {
    await rawInsert(tx, WebhookEndpointEntity, e);
  }

  /** By id; `after` is an endpoint id for the next page. */
  listEndpoints(organizationId: string, limit: number, after: string | null): Promise<WebhookEndpoint[]> {
    const endpoint = this.endpointColumns;
    return endpoint.rows(
      this.db,
      `SELECT ${endpoint.sql} FROM webhook_endpoints
        WHERE organization_id = $1 AND deleted_at IS NULL${after === null ? '' : ' AND id > $3'}
        ORDER BY id LIMIT $2`,
      after === null ? [organizationId, limit] : [organizationId, limit, after],
    );
  }

  /** In the caller's transaction when `tx` is given. */
  async findEndpoint(organizationId: string, id: string, tx?: Tx): Promise<WebhookEndpoint | null> {
    const endpoint = this.endpointColumns;
    const [found] = await endpoint.rows(
      tx ?? this.db,
      `SELECT ${endpoint.sql} FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
      [id, organizationId],
    );
    return found ?? null;
  }

  /**
   * The id of a live endpoint of the organization (enabled or not) with this exact URL and at
   * least one of these events, other than `exceptId`; null when there is none.
   */
  async findOverlappingEndpoint(
    tx: Tx,
    organizationId: string,
    url: string,
    events: readonly WebhookEventType[],
    exceptId: string | null,
  ): Promise<string | null> {
    const { rows } = await rawQuery<{ id: string }>(
      tx,
      `SELECT id FROM webhook_endpoints
        WHERE organization_id = $1 AND deleted_at IS NULL AND url = $2 AND events && $3::text[] AND id IS DISTINCT FROM $4
        ORDER BY id LIMIT 1`,
      [organizationId, url, events, exceptId],
    );
    return rows[0]?.id ?? null;
  }

  /** Changes what is given; null when the endpoint is not the organization's (or deleted). */
  async updateEndpoint(
    tx: Tx,
    organizationId: string,
    id: string,
    change: { url?: string; events?: WebhookEventType[]; enabled?: boolean },
    at: Date,
  ): Promise<WebhookEndpoint | null> {
    const endpoint = this.endpointColumns;
    const [updated] = await endpoint.rows(
      tx,
      `UPDATE webhook_endpoints
          SET url = coalesce($3::text, url),
              events = coalesce($4::text[], events),
              enabled = coalesce($5::boolean, enabled),
              disabled_reason = CASE WHEN $5::boolean IS NULL THEN disabled_reason WHEN $5::boolean THEN NULL ELSE 'disabled_by_partner' END,
              failing_since = CASE WHEN $5::boolean THEN NULL ELSE failing_since END,
              updated_at = $6
        WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
        RETURNING ${endpoint.sql}`,
      [id, organizationId, change.url ?? null, change.events ?? null, change.enabled ?? null, at],
    );
    if (updated && change.enabled !== undefined) await this.parkPending(tx, id, !updated.enabled);
    return updated ?? null;
  }

  /**
   * Parks (or unparks) the endpoint's pending deliveries to follow its `enabled`, in the
   * transaction that changed it (which holds the endpoint's row): rows already right are not
   * touched, so re-saving an endpoint costs nothing.
   */
  private async parkPending(tx: Tx, endpointId: string, parked: boolean): Promise<void> {
    await rawQuery(tx, `UPDATE webhook_deliveries SET parked = $2 WHERE endpoint_id = $1 AND status = 'pending' AND parked <> $2`, [
      endpointId,
      parked,
    ]);
  }

  async rotateSecret(organizationId: string, id: string, sealed: string, previousUntil: Date, at: Date): Promise<WebhookEndpoint | null> {
    const endpoint = this.endpointColumns;
    const [updated] = await endpoint.rows(
      this.db,
      `UPDATE webhook_endpoints
          SET previous_secret_sealed = CASE WHEN $4::timestamptz > $5::timestamptz THEN secret_sealed END,
              previous_secret_expires_at = CASE WHEN $4::timestamptz > $5::timestamptz THEN $4::timestamptz END,
              secret_sealed = $3, updated_at = $5
        WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL
        RETURNING ${endpoint.sql}`,
      [id, organizationId, sealed, previousUntil, at],
    );
    return updated ?? null;
  }

  /** Deletes the endpoint and drops its pending deliveries; false when there was nothing to delete. */
  async deleteEndpoint(organizationId: string, id: string, at: Date): Promise<boolean> {
    return runInTransaction(this.db, async (tx) => {
      const { affected } = await rawQuery(
        tx,
        `UPDATE webhook_endpoints SET deleted_at = $3, enabled = false, updated_at = $3
          WHERE id = $1 AND organization_id = $2 AND deleted_at IS NULL`,
        [id, organizationId, at],
      );
      if (affected) await rawQuery(tx, `DELETE FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [id]);
      return affected > 0;
    });
  }

  /**
   * The outbox write, inside the caller's transaction: the message and one pending delivery per
   * enabled endpoint of the organization subscribed to its type, in one statement. Nothing is
   * written when no endpoint listens.
   */
  async insertMessage(tx: Tx, id: string, organizationId: string, body: WebhookBody, at: Date): Promise<number> {
    return this.insertMessages(tx, organizationId, body.type, [{ id, body }], at);
  }

  /** Whether an enabled endpoint of the organization subscribes to `type`, in the caller's transaction. */
  async anyListener(tx: Tx, organizationId: string, type: WebhookEventType): Promise<boolean> {
    const { rows } = await rawQuery(
      tx,
      `SELECT 1 FROM webhook_endpoints WHERE organization_id = $1 AND enabled AND deleted_at IS NULL AND $2 = ANY(events) LIMIT 1`,
      [organizationId, type],
    );
    return rows.length > 0;
  }

  /**
   * `insertMessage` for many messages of one organization and type at once, in one statement
   * (a scene's deletion ending thousands of embed sessions must not cost a round trip each). The
   * column lists follow the values in their SELECTs, so they are rendered from the entities.
   * Nothing is written when no endpoint listens. Returns the deliveries written.
   */
  async insertMessages(
    tx: Tx,
    organizationId: string,
    type: WebhookEventType,
    messages: Array<{ id: string; body: WebhookBody }>,
    at: Date,
  ): Promise<number> {
    if (messages.length === 0) return 0;
    const message = entityColumns(tx, WebhookMessageEntity, { only: ['id', 'organizationId', 'type', 'payload', 'createdAt'] });
    const delivery = entityColumns(tx, WebhookDeliveryEntity, {
      only: ['endpointId', 'messageId', 'status', 'nextAttemptAt', 'createdAt'],
    });
    const { affected } = await rawQuery(
      tx,
      `WITH targets AS (
         SELECT id FROM webhook_endpoints
          WHERE organization_id = $1 AND enabled AND deleted_at IS NULL AND $2 = ANY(events)
       ), items AS (
         SELECT unnest($4::text[]) AS id, unnest($5::text[]) AS payload
       ), message AS (
         INSERT INTO webhook_messages (${message.sql})
         SELECT i.id, $1, $2, i.payload::jsonb, $3 FROM items i WHERE EXISTS (SELECT 1 FROM targets)
         RETURNING id
       )
       INSERT INTO webhook_deliveries (${delivery.sql})
       SELECT t.id, m.id, 'pending', $3, $3 FROM targets t CROSS JOIN message m`,
      [organizationId, type, at, messages.map((m) => m.id), messages.map((m) => JSON.stringify(m.body))],
    );
    return affected;
  }

  /**
   * Claims up to `limit` due deliveries of enabled endpoints for this worker: their
   * `next_attempt_at` moves to `leaseUntil`, so another worker skips them, and a worker killed
   * mid-delivery leaves them to come due again then (at-least-once). SKIP LOCKED lets replicas
   * claim side by side.
   */
  async claimDue(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const claimedDelivery = entityColumns(this.db, WebhookDeliveryEntity, { only: ['endpointId', 'messageId', 'attempts'] });
    const target = entityColumns(this.db, WebhookEndpointEntity, {
      alias: 'e',
      only: ['url', 'allowLoopback', 'secretSealed', 'previousSecretSealed', 'previousSecretExpiresAt'],
    });
    const { rows } = await rawQuery<{ body: string }>(
      this.db,
      `WITH due AS (
         SELECT d.endpoint_id, d.message_id FROM webhook_deliveries d
           JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled AND e.deleted_at IS NULL
          WHERE d.status = 'pending' AND NOT d.parked AND d.next_attempt_at <= $1
          ORDER BY d.next_attempt_at
          LIMIT $3
          FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d SET next_attempt_at = $2
           FROM due WHERE d.endpoint_id = due.endpoint_id AND d.message_id = due.message_id
         RETURNING ${entityColumns(this.db, WebhookDeliveryEntity, { alias: 'd', only: ['endpointId', 'messageId', 'attempts'] }).sql}
       )
       SELECT c.*, ${target.sql}, m.payload::text AS body
         FROM claimed c
         JOIN webhook_endpoints e ON e.id = c.endpoint_id
         JOIN webhook_messages m ON m.id = c.message_id`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({ ...claimedDelivery.toEntity(r), ...target.toEntity(r), body: r.body, leaseUntil }));
  }

  /**
   * Records one attempt in the delivery's log, and what follows from it (delivered, retried at
   * `nextAttemptAt`, failed for good) only while the claim still holds the delivery: pending, its
   * `next_attempt_at` the claim's lease. Once a replay made it due again, or the lease ran out and
   * another worker claimed it, the attempt that holds it now decides, so a replay asked for during
   * an attempt is never swallowed by that attempt's end; the older attempt is still logged, as it
   * reached (or failed to reach) the partner. The log keeps the newest `keep` attempts (replays
   * would otherwise grow it without end); `attempts` counts them all. False when the claim no
   * longer held the delivery.
   */
  async recordAttempt(
    claim: Pick<ClaimedDelivery, 'endpointId' | 'messageId' | 'leaseUntil'>,
    attempt: WebhookAttempt,
    outcome: DeliveryOutcome,
    at: Date,
    keep: number,
  ): Promise<boolean> {
    const { rows } = await rawQuery<{ held: boolean }>(
      this.db,
      `WITH cur AS (
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
        RETURNING cur.held`,
      [
        claim.endpointId,
        claim.messageId,
        JSON.stringify([attempt]),
        outcome.status,
        outcome.status === 'pending' ? outcome.nextAttemptAt : null,
        at,
        keep,
        claim.leaseUntil,
      ],
    );
    return rows[0]?.held ?? false;
  }

  /** A 2xx: the endpoint is healthy again. */
  async markEndpointHealthy(endpointId: string): Promise<void> {
    await rawQuery(this.db, `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [endpointId]);
  }

  /**
   * A failed attempt: the endpoint's failing streak starts now unless it already runs; once it
   * is older than `disableBefore` allows, the endpoint is disabled (`failing`). True when this
   * call disabled it.
   */
  async markEndpointFailing(endpointId: string, at: Date, disableBefore: Date): Promise<boolean> {
    const streak = entityColumns(this.db, WebhookEndpointEntity, { only: ['failingSince', 'enabled'] });
    const [endpoint] = await streak.rows(
      this.db,
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1 AND deleted_at IS NULL
        RETURNING ${streak.sql}`,
      [endpointId, at],
    );
    if (!endpoint?.enabled || (endpoint.failingSince as Date) > disableBefore) return false;
    // Disabled and its pending deliveries parked in one statement: the endpoint's row first.
    const { rows } = await rawQuery<{ disabled: boolean }>(
      this.db,
      `WITH off AS (
         UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = $2 WHERE id = $1 AND enabled RETURNING id
       ), parked AS (
         UPDATE webhook_deliveries d SET parked = true FROM off WHERE d.endpoint_id = off.id AND d.status = 'pending' AND NOT d.parked
       )
       SELECT EXISTS (SELECT 1 FROM off) AS disabled`,
      [endpointId, at],
    );
    return rows[0].disabled;
  }

  /** A delivery's columns (alias `d`) and its message's type (alias `m`), read back as one object. */
  private get deliveryWithType() {
    const delivery = entityColumns(this.db, WebhookDeliveryEntity, { alias: 'd' });
    const type = entityColumns(this.db, WebhookMessageEntity, { alias: 'm', only: ['type'] });
    return {
      sql: `${delivery.sql}, ${type.sql}`,
      toEntity: (row: ResultRow): WebhookDeliveryWithType => Object.assign(delivery.toEntity(row), type.toEntity(row)),
    };
  }

  /** Newest first; `before` is a message id for the next page. */
  async listDeliveries(
    organizationId: string,
    endpointId: string,
    limit: number,
    before: string | null,
  ): Promise<WebhookDeliveryWithType[]> {
    const columns = this.deliveryWithType;
    const { rows } = await rawQuery(
      this.db,
      `SELECT ${columns.sql}
         FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
         JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = $1 AND e.organization_id = $2 AND e.deleted_at IS NULL AND ($4::text IS NULL OR d.message_id < $4)
        ORDER BY d.message_id DESC
        LIMIT $3`,
      [endpointId, organizationId, limit, before],
    );
    return rows.map(columns.toEntity);
  }

  /** Makes a delivery due now, whatever its state; null when it is not the organization's. One statement: nothing can go between the change and its answer. */
  async replay(organizationId: string, endpointId: string, messageId: string, at: Date): Promise<WebhookDeliveryWithType | null> {
    const columns = this.deliveryWithType;
    const { rows } = await rawQuery(
      this.db,
      `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = $4, completed_at = NULL, parked = NOT e.enabled
         FROM webhook_endpoints e, webhook_messages m
        WHERE d.endpoint_id = e.id AND m.id = d.message_id
          AND d.endpoint_id = $2 AND d.message_id = $3 AND e.organization_id = $1 AND e.deleted_at IS NULL
        RETURNING ${columns.sql}`,
      [organizationId, endpointId, messageId, at],
    );
    return rows.length === 0 ? null : columns.toEntity(rows[0]);
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
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM webhook_deliveries d USING (
         SELECT endpoint_id, message_id FROM webhook_deliveries
          WHERE ${which} AND ${column} < $1
          ORDER BY ${column} LIMIT $2 FOR UPDATE SKIP LOCKED) old
        WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id`,
      [before, limit],
    );
    return affected;
  }

  /**
   * Deletes up to `limit` messages created before `before` that no delivery names any more (their
   * payload is all that is left of them, and nothing can list or replay it), oldest first.
   */
  async deleteOrphanMessagesBefore(before: Date, limit: number): Promise<number> {
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM webhook_messages WHERE id IN (
         SELECT m.id FROM webhook_messages m
          WHERE m.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
          ORDER BY m.created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return affected;
  }

  /**
   * For up to `limit` endpoints after `after` (by id, deleted ones included), the message id of
   * each one's delivery just past its newest `keep`, or null when it has no more than `keep`.
   * Each reads at most `keep` + 1 entries of the primary key, newest first.
   */
  async deliveryCutoffs(after: string, limit: number, keep: number): Promise<{ endpointId: string; cutoff: string | null }[]> {
    const { rows } = await rawQuery<{ endpoint_id: string; cutoff: string | null }>(
      this.db,
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
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM webhook_deliveries d USING (
         SELECT endpoint_id, message_id FROM webhook_deliveries
          WHERE endpoint_id = $1 AND message_id <= $2 AND status <> 'pending'
          ORDER BY message_id LIMIT $3 FOR UPDATE SKIP LOCKED) old
        WHERE d.endpoint_id = old.endpoint_id AND d.message_id = old.message_id`,
      [endpointId, cutoff, limit],
    );
    return affected;
  }

  /** Deletes up to `limit` endpoints deleted (by their partner) before `before`, with their deliveries. */
  async deleteEndpointsDeletedBefore(before: Date, limit: number): Promise<number> {
    const { affected } = await rawQuery(
      this.db,
      `DELETE FROM webhook_endpoints WHERE id IN (
         SELECT id FROM webhook_endpoints WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [before, limit],
    );
    return affected;
  }
}
