import { Clock, DomainError, ErrorCode, HostResolutionError, IdGenerator, RandomSource, Tx } from '@app/core';
import { Injectable } from '@nestjs/common';
import {
  CreateWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  WebhookTestResponse,
} from './dto/webhook-endpoint.dto';
import { WEBHOOK_LIMITS, WebhookReplayBudget } from './webhook-limits';
import { newSigningSecret, SecretBox } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';
import { TargetRefused, WebhookTargets } from './webhook-target';
import { WebhookEventType } from './webhook-events';
import { WebhookErrors } from './webhooks.errors';
import { WebhookDeliveryWithType, WebhookEndpoint, WebhooksRepository } from './webhooks.repository';
import { WebhookIdPrefix } from './webhooks.ids';

/** Who asks: the organization, and whether it is a test organization (localhost targets). */
export interface WebhookOwner {
  organizationId: string;
  isTest: boolean;
}

const DEFAULT_OVERLAP_SECONDS = 86_400;
/** After a DNS timeout the name's servers may answer on the next try; no need to make partners wait long. */
const DNS_RETRY_AFTER_SECONDS = 5;

/** The partner-facing management of webhook endpoints: create, list, change, rotate, delete, inspect, replay. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly targets: WebhookTargets,
    private readonly secrets: SecretBox,
    private readonly ids: IdGenerator,
    private readonly random: RandomSource,
    private readonly clock: Clock,
    private readonly replays: WebhookReplayBudget,
    private readonly sender: WebhookSender,
  ) {}

  /**
   * An organization keeps at most WEBHOOK_LIMITS.endpointsPerOrganization live endpoints, and no two
   * of them with the same URL and a common event (each such event would go out twice). The checks
   * and the insert share a transaction that holds the organization's endpoint lock, so concurrent
   * creations cannot both take the last place, nor both add the same URL.
   */
  async create(owner: WebhookOwner, dto: CreateWebhookEndpointDto): Promise<WebhookEndpointWithSecretResponse> {
    const url = await this.checkedUrl(dto.url, owner.isTest);
    const now = this.clock.now();
    const secret = newSigningSecret(this.random);
    const endpoint: WebhookEndpoint = {
      id: this.ids.generate(WebhookIdPrefix.Endpoint),
      organizationId: owner.organizationId,
      url,
      allowLoopback: owner.isTest,
      events: dto.events,
      enabled: true,
      disabledReason: null,
      secretSealed: this.secrets.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.webhooks.transaction(async (tx) => {
      await this.webhooks.lockOrganizationEndpoints(tx, owner.organizationId);
      if ((await this.webhooks.countEndpoints(tx, owner.organizationId)) >= WEBHOOK_LIMITS.endpointsPerOrganization) {
        throw WebhookErrors.tooManyEndpoints();
      }
      await this.refuseOverlap(tx, owner.organizationId, url, endpoint.events, null);
      await this.webhooks.insertEndpoint(tx, endpoint);
    });
    return { ...toEndpointResponse(endpoint), secret };
  }

  /** By id, pages of `limit`; `after` is the previous page's `nextCursor`. */
  async list(
    organizationId: string,
    after: string | null,
    limit: number = WEBHOOK_LIMITS.page.default,
  ): Promise<WebhookEndpointListResponse> {
    const rows = await this.webhooks.listEndpoints(organizationId, limit + 1, after);
    const page = rows.slice(0, limit);
    return { items: page.map(toEndpointResponse), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
  }

  async get(organizationId: string, id: string): Promise<WebhookEndpointResponse> {
    return toEndpointResponse(await this.found(this.webhooks.findEndpoint(organizationId, id)));
  }

  async update(owner: WebhookOwner, id: string, dto: UpdateWebhookEndpointDto): Promise<WebhookEndpointResponse> {
    // Existence first: another organization's id must not learn whether its URL would pass.
    const current = await this.found(this.webhooks.findEndpoint(owner.organizationId, id));
    const url = dto.url === undefined ? undefined : await this.checkedUrl(dto.url, current.allowLoopback);
    const changed = await this.webhooks.transaction(async (tx) => {
      if (url !== undefined || dto.events !== undefined) {
        await this.webhooks.lockOrganizationEndpoints(tx, owner.organizationId);
        // Read again under the lock: another change of this endpoint may have committed meanwhile.
        const latest = await this.webhooks.findEndpoint(owner.organizationId, id, tx);
        if (latest) await this.refuseOverlap(tx, owner.organizationId, url ?? latest.url, dto.events ?? latest.events, id);
      }
      return this.webhooks.updateEndpoint(
        tx,
        owner.organizationId,
        id,
        { url, events: dto.events, enabled: dto.enabled },
        this.clock.now(),
      );
    });
    return toEndpointResponse(await this.found(Promise.resolve(changed)));
  }

  /** `409 webhook_endpoint_conflict` naming the other endpoint, when one has this URL and a common event. */
  private async refuseOverlap(
    tx: Tx,
    organizationId: string,
    url: string,
    events: readonly WebhookEventType[],
    exceptId: string | null,
  ): Promise<void> {
    const other = await this.webhooks.findOverlappingEndpoint(tx, organizationId, url, events, exceptId);
    if (other) throw WebhookErrors.duplicateEndpoint(other);
  }

  /** A new secret; the previous one keeps signing (a second signature) for `overlapSeconds`. */
  async rotateSecret(
    organizationId: string,
    id: string,
    overlapSeconds = DEFAULT_OVERLAP_SECONDS,
  ): Promise<WebhookEndpointWithSecretResponse> {
    const now = this.clock.now();
    const secret = newSigningSecret(this.random);
    const endpoint = await this.found(
      this.webhooks.rotateSecret(organizationId, id, this.secrets.seal(secret), new Date(now.getTime() + overlapSeconds * 1000), now),
    );
    return { ...toEndpointResponse(endpoint), secret };
  }

  /** Idempotent and silent, like every DELETE of our APIs (docs/api.md, Conventions). */
  async delete(organizationId: string, id: string): Promise<void> {
    await this.webhooks.deleteEndpoint(organizationId, id, this.clock.now());
  }

  async deliveries(
    organizationId: string,
    id: string,
    before: string | null,
    limit: number = WEBHOOK_LIMITS.page.default,
  ): Promise<WebhookDeliveryListResponse> {
    await this.found(this.webhooks.findEndpoint(organizationId, id));
    const rows = await this.webhooks.listDeliveries(organizationId, id, limit + 1, before);
    const page = rows.slice(0, limit);
    return { items: page.map(toDeliveryResponse), nextCursor: rows.length > limit ? page[page.length - 1].messageId : null };
  }

  /**
   * Sends a delivery again (due now), whatever its state; the same `webhook-id` goes out. Every
   * call spends one of the organization's replays, whatever it finds: the budget bounds the
   * requests, and an unknown id answers like another organization's.
   */
  async replay(organizationId: string, id: string, messageId: string): Promise<WebhookDeliveryResponse> {
    await this.replays.spend(organizationId);
    return toDeliveryResponse(await this.found(this.webhooks.replay(organizationId, id, messageId, this.clock.now())));
  }

  /**
   * Sends a signed `webhook.test` event to the endpoint now, once, by the same rules as every
   * delivery (the target checked again, both secrets signing during a rotation's overlap), and
   * answers with the attempt. Nothing is recorded or retried: it is not one of the endpoint's
   * deliveries, and it is sent whether the endpoint is enabled or not. Only the HTTP app knows who
   * may call it (test organizations). It spends the replay budget: each one is an outgoing request
   * that may take the whole delivery timeout, like the delivery a replay makes due.
   */
  async sendTest(organizationId: string, id: string): Promise<WebhookTestResponse> {
    await this.replays.spend(organizationId);
    const endpoint = await this.found(this.webhooks.findEndpoint(organizationId, id));
    const messageId = this.ids.generate(WebhookIdPrefix.Message);
    const body = JSON.stringify({ type: 'webhook.test', timestamp: this.clock.now().toISOString(), data: { webhookEndpointId: id } });
    const attempt = await this.sender.send(endpoint, messageId, body, { pooled: false });
    return { messageId, type: 'webhook.test', delivered: attempt.error === null, attempt };
  }

  private async found<T>(p: Promise<T | null>): Promise<T> {
    const value = await p;
    if (!value) throw DomainError.notFound();
    return value;
  }

  /**
   * The URL as stored, once it passed the target rules. A name whose DNS did not answer in time
   * (or failed) is `503 unavailable` with Retry-After, not `422`: nothing says the URL is wrong,
   * and the same request may pass a moment later. A name that does not exist is `422`.
   */
  private async checkedUrl(raw: string, isTest: boolean): Promise<string> {
    try {
      return (await this.targets.check(raw, isTest)).url.href;
    } catch (e) {
      if (e instanceof TargetRefused) throw DomainError.validation([{ field: 'url', code: 'not_allowed', message: e.message }]);
      if (e instanceof HostResolutionError) {
        throw new DomainError(ErrorCode.Unavailable, 'The host name of url could not be resolved in time. Retry later.', {
          retryAfterSeconds: DNS_RETRY_AFTER_SECONDS,
          cause: e,
        });
      }
      throw e;
    }
  }
}

function toEndpointResponse(e: WebhookEndpoint): WebhookEndpointResponse {
  return {
    webhookEndpointId: e.id,
    url: e.url,
    events: e.events,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

function toDeliveryResponse(d: WebhookDeliveryWithType): WebhookDeliveryResponse {
  return {
    messageId: d.messageId,
    type: d.type,
    status: d.status,
    attemptCount: d.attempts,
    attempts: d.attemptsLog,
    // Past its end a delivery's next_attempt_at is a stale lease, not a plan.
    nextAttemptAt: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: d.createdAt.toISOString(),
    completedAt: d.completedAt?.toISOString() ?? null,
  };
}
