import { AppConfig, Clock, MetricsService } from '@app/core';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { WEBHOOKS_CONFIG } from './webhooks.config';
import { WEBHOOK_LIMITS } from './webhook-limits';
import { WebhookAttempt } from './webhook-delivery.entity';
import { WebhookSender } from './webhook-sender';
import { ClaimedDelivery, DeliveryOutcome, WebhooksRepository } from './webhooks.repository';

/**
 * A claimed delivery is this worker's for its timeout and this much more; then, if the worker
 * died, another takes it. An attempt never outlasts the lease while this worker lives, because
 * one deadline (WEBHOOK_TIMEOUT_MS) covers all of it, DNS included: the slack is for recording it.
 */
const LEASE_SLACK_MS = 5_000;

/**
 * Delivers the outbox (WebhookOutbox) from the worker: claims due deliveries with SKIP LOCKED,
 * signs each with the endpoint's secret (Standard Webhooks, `standardwebhooks`), POSTs it to the
 * address it just checked, and records the attempt. Only a 2xx counts; anything else, a timeout or
 * a refused target is retried on WEBHOOK_RETRY_SCHEDULE_MS, then the delivery fails for good. A
 * killed worker's claims come due again after their lease: at least once, same `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly inFlight = new Set<Promise<void>>();
  private readonly results;
  private readonly disabled;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    metrics: MetricsService,
  ) {
    this.results = metrics.counter('webhook_delivery_attempts_total', 'Webhook delivery attempts by result', ['result'] as const);
    this.disabled = metrics.counter(
      'webhook_endpoints_disabled_total',
      'Webhook endpoints this worker disabled after failing too long',
      [],
    );
  }

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  /** Stops claiming, lets running deliveries finish (each is bounded by WEBHOOK_TIMEOUT_MS). */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    this.sender.close();
  }

  private async run(): Promise<void> {
    const { concurrency, pollIntervalMs, timeoutMs } = this.config.slice(WEBHOOKS_CONFIG);
    while (!this.stopping) {
      const free = concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const now = this.clock.now();
          const due = await this.webhooks.claimDue(now, new Date(now.getTime() + timeoutMs + LEASE_SLACK_MS), free);
          claimed = due.length;
          for (const d of due) {
            const p: Promise<void> = this.deliver(d)
              .catch((e: Error) => this.logger.warn(`recording delivery ${d.messageId} to ${d.endpointId} failed: ${e.message}`))
              .finally(() => this.inFlight.delete(p));
            this.inFlight.add(p);
          }
        } catch (e) {
          this.logger.warn(`claiming webhook deliveries failed: ${(e as Error).message}`);
        }
      }
      // A full batch means more may be due: claim again as soon as a slot frees.
      if (free > 0 && claimed === free) continue;
      await this.pause(free <= 0 ? null : pollIntervalMs);
    }
  }

  /** Waits `ms` (null: until a delivery ends), or less when a delivery ends or shutdown starts. */
  private pause(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? null : setTimeout(done, ms);
      const onEnd = () => done();
      for (const p of this.inFlight) void p.then(onEnd);
      this.wake = done;
      function done() {
        if (timer) clearTimeout(timer);
        resolve();
      }
    });
  }

  /** One attempt, recorded, and what follows from it (success, a retry, the end, a disabled endpoint). */
  private async deliver(d: ClaimedDelivery): Promise<void> {
    const attempt = await this.sender.send(d, d.messageId, d.body);
    const error = attempt.error;
    const now = this.clock.now();
    const keep = WEBHOOK_LIMITS.attemptsPerDelivery;
    this.results.inc({ result: error ?? 'delivered' });
    if (!error) {
      await this.recordAttempt(d, attempt, { status: 'succeeded' }, now, keep);
      await this.webhooks.markEndpointHealthy(d.endpointId);
      return;
    }
    const outcome = this.next(d.attempts + 1, now);
    await this.recordAttempt(d, attempt, outcome, now, keep);
    this.logFailure(d, attempt, outcome);
    const disableBefore = new Date(now.getTime() - this.config.slice(WEBHOOKS_CONFIG).disableAfterMs);
    if (await this.webhooks.markEndpointFailing(d.endpointId, now, disableBefore)) {
      this.disabled.inc();
      this.logger.warn(
        `webhook endpoint ${d.endpointId} disabled: no delivery succeeded for ${this.config.slice(WEBHOOKS_CONFIG).disableAfterMs / 1000} s`,
      );
    }
  }

  /**
   * The attempt on the delivery's row. When a replay or another worker took the delivery over
   * during the attempt (its lease lost), the attempt is only logged: the one holding it decides.
   * What the attempt said of the endpoint's health counts either way.
   */
  private async recordAttempt(d: ClaimedDelivery, attempt: WebhookAttempt, outcome: DeliveryOutcome, now: Date, keep: number) {
    if (!(await this.webhooks.recordAttempt(d, attempt, outcome, now, keep))) {
      this.logger.log(`delivery ${d.messageId} to ${d.endpointId}: replayed or claimed again during its attempt, which was only logged`);
    }
  }

  /**
   * One line per failed attempt, by ids and our own words only: never the URL (it may carry
   * credentials or a token in its query), the body or a secret. A retry to come is `info` (a
   * partner's endpoint being down is the partner's to fix, and the metric counts it); the last
   * attempt failing is a warning.
   */
  private logFailure(d: ClaimedDelivery, attempt: WebhookAttempt, outcome: DeliveryOutcome): void {
    const fields = {
      webhookEndpointId: d.endpointId,
      messageId: d.messageId,
      attempt: d.attempts + 1,
      statusCode: attempt.statusCode,
      error: attempt.error,
      durationMs: attempt.durationMs,
      nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt.toISOString() : null,
    };
    const what = attempt.error === 'http_status' ? `HTTP ${attempt.statusCode}` : attempt.error;
    const line = `webhook delivery ${d.messageId} to ${d.endpointId} failed (attempt ${fields.attempt}: ${what})`;
    if (outcome.status === 'pending') this.logger.log(fields, `${line}; next attempt at ${fields.nextAttemptAt}`);
    else this.logger.warn(fields, `${line}; no attempt is left, the delivery has failed`);
  }

  /** After `attempts` failed attempts: the next one per the schedule (±10 % so retries spread), or the end. */
  private next(attempts: number, now: Date): DeliveryOutcome {
    const schedule = this.config.slice(WEBHOOKS_CONFIG).retryScheduleMs;
    if (attempts > schedule.length) return { status: 'failed' };
    const wait = schedule[attempts - 1] * (0.9 + Math.random() * 0.2);
    return { status: 'pending', nextAttemptAt: new Date(now.getTime() + wait) };
  }
}
