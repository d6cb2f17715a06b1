import { Clock, JobName, OnJob } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { WEBHOOK_LIMITS } from './webhook-limits';
import { WebhooksRepository } from './webhooks.repository';

/**
 * How long events, their delivery records and deleted endpoints are kept. Long enough for a
 * partner to look back over a month of deliveries and replay any of them, far beyond the retry
 * schedule (about 27 h) and the 5 days after which a failing endpoint is disabled; a delivery
 * still pending at 30 days (its endpoint disabled all that time) is dropped with its message.
 */
export const WEBHOOK_RETENTION_MS = 30 * 24 * 60 * 60_000;
const PURGE_BATCH = 1000;
/** One run deletes at most this many batches per table; the next run, an hour later, goes on. */
const MAX_BATCHES = 50;
/** Endpoints looked at per statement when pruning deliveries past the per-endpoint bound. */
const ENDPOINT_BATCH = 100;

export interface PurgeResult {
  messages: number;
  endpoints: number;
  /** Finished deliveries past their endpoint's newest WEBHOOK_LIMITS.deliveriesPerEndpoint. */
  deliveries: number;
}

/** The maintenance job that keeps the webhook tables from growing without bound. */
@Injectable()
export class WebhookRetention {
  private readonly logger = new Logger(WebhookRetention.name);

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly clock: Clock,
  ) {}

  @OnJob(JobName.WebhooksPurgeOld)
  async purgeOld(): Promise<PurgeResult> {
    const before = new Date(this.clock.now().getTime() - WEBHOOK_RETENTION_MS);
    const messages = await inBatches((limit) => this.webhooks.deleteMessagesBefore(before, limit));
    const endpoints = await inBatches((limit) => this.webhooks.deleteEndpointsDeletedBefore(before, limit));
    const deliveries = await this.pruneDeliveriesPastBound();
    if (messages + endpoints + deliveries > 0) {
      this.logger.log(
        `purged ${messages} webhook message(s) and ${endpoints} deleted endpoint(s) older than 30 days, ` +
          `and ${deliveries} delivery(ies) past their endpoint's newest ${WEBHOOK_LIMITS.deliveriesPerEndpoint}`,
      );
    }
    return { messages, endpoints, deliveries };
  }

  /**
   * Each endpoint keeps its newest WEBHOOK_LIMITS.deliveriesPerEndpoint deliveries: however many
   * events an organization makes within the 30 days, one endpoint's log stays bounded. Walks the
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

/** Small batches keep each DELETE's locks short next to the dispatcher's claims. */
async function inBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await deleteBatch(PURGE_BATCH);
    total += n;
    if (n < PURGE_BATCH) break;
  }
  return total;
}
