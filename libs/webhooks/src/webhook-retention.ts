import { AppConfig, Clock, inBatches, OnJob } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { WEBHOOK_LIMITS } from './webhook-limits';
import { WebhooksRepository } from './webhooks.repository';
import { WebhookJob } from './webhooks.jobs';
import { WEBHOOKS_CONFIG } from './webhooks.config';

/** Endpoints looked at per statement when pruning deliveries past the per-endpoint bound. */
const ENDPOINT_BATCH = 100;

export interface PurgeResult {
  /** Deliveries (with their attempt logs) erased WEBHOOK_RETENTION_DAYS after they ended. */
  deliveries: number;
  /** Messages (event payloads) erased once no delivery names them and they are that old. */
  messages: number;
  endpoints: number;
  /** Finished deliveries past their endpoint's newest WEBHOOK_LIMITS.deliveriesPerEndpoint. */
  pruned: number;
}

/**
 * The maintenance job that erases webhook data (docs/operations.md, "Data we keep"): a delivery and its attempt
 * log WEBHOOK_RETENTION_DAYS (30) after it ended — delivered, or failed for good at the end of the
 * retry schedule (about 27 h) — so a partner can look back over that window and replay any
 * delivery; a delivery still pending that long after it fell due (its endpoint disabled all that
 * time) counts as ended then. An event's payload goes once no delivery names it, and endpoints
 * deleted by their partner go as long after their deletion.
 */
@Injectable()
export class WebhookRetention {
  private readonly logger = new Logger(WebhookRetention.name);

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  // Each rule runs in small batches (inBatches): short DELETE locks next to the dispatcher's
  // claims, and a bounded run; the next one, an hour later, goes on.
  @OnJob(WebhookJob.PurgeOld)
  async purgeOld(): Promise<PurgeResult> {
    const before = new Date(this.clock.now().getTime() - this.config.slice(WEBHOOKS_CONFIG).retentionMs);
    const deliveries =
      (await inBatches((limit) => this.webhooks.deleteDeliveriesEndedBefore(before, limit))) +
      (await inBatches((limit) => this.webhooks.deleteDeliveriesDueBefore(before, limit)));
    const endpoints = await inBatches((limit) => this.webhooks.deleteEndpointsDeletedBefore(before, limit));
    const pruned = await this.pruneDeliveriesPastBound();
    // Last: the rules above leave messages without deliveries.
    const messages = await inBatches((limit) => this.webhooks.deleteOrphanMessagesBefore(before, limit));
    if (deliveries + messages + endpoints + pruned > 0) {
      this.logger.log(
        `purged ${deliveries} webhook delivery(ies), ${messages} message(s) and ${endpoints} deleted endpoint(s) ` +
          `that ended before ${before.toISOString()}, and ${pruned} delivery(ies) past their endpoint's newest ${WEBHOOK_LIMITS.deliveriesPerEndpoint}`,
      );
    }
    return { deliveries, messages, endpoints, pruned };
  }

  /**
   * Each endpoint keeps its newest WEBHOOK_LIMITS.deliveriesPerEndpoint deliveries: however many
   * events an organization makes within the retention window, one endpoint's log stays bounded. Walks the
   * endpoints in pages, each endpoint's excess deleted in small batches (short locks).
   */
  private async pruneDeliveriesPastBound(): Promise<number> {
    let total = 0;
    let after = '';
    for (;;) {
      const page = await this.webhooks.deliveryCutoffs(after, ENDPOINT_BATCH, WEBHOOK_LIMITS.deliveriesPerEndpoint);
      for (const { endpointId, cutoff } of page) {
        if (cutoff) total += await inBatches((limit) => this.webhooks.deleteFinishedDeliveriesUpTo(endpointId, cutoff, limit));
      }
      if (page.length < ENDPOINT_BATCH) return total;
      after = page[page.length - 1].endpointId;
    }
  }
}
