import { AppConfig, Clock, HostResolutionError, MetricsService, pinnedLookup } from '@app/core';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { SecretBox } from './webhook-secrets';
import { WEBHOOKS_CONFIG } from './webhooks.config';
import { WEBHOOK_LIMITS } from './webhook-limits';
import { TargetRefused, WebhookTargets } from './webhook-target';
import { WebhookAttempt } from './webhook-delivery.entity';
import { ClaimedDelivery, DeliveryOutcome, WebhooksRepository } from './webhooks.repository';

class DeliveryTimeout extends Error {}

/**
 * A claimed delivery is this worker's for its timeout and this much more; then, if the worker
 * died, another takes it. An attempt never outlasts the lease while this worker lives, because
 * one deadline (WEBHOOK_TIMEOUT_MS) covers all of it, DNS included: the slack is for recording it.
 */
const LEASE_SLACK_MS = 5_000;
const USER_AGENT = 'SceneStudio-Webhooks/1';

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
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, keepAliveMsecs: 1000, timeout: 4000 }),
    'https:': new https.Agent({ keepAlive: true, keepAliveMsecs: 1000, timeout: 4000 }),
  };
  private readonly results;
  private readonly disabled;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly targets: WebhookTargets,
    private readonly secrets: SecretBox,
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
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
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
    const started = this.clock.now();
    const t0 = performance.now();
    // The one deadline of the attempt: resolving the name, connecting, sending, the status line.
    const deadline = AbortSignal.timeout(this.config.slice(WEBHOOKS_CONFIG).timeoutMs);
    let statusCode: number | null = null;
    let error: WebhookAttempt['error'] = null;
    try {
      const { url, addresses } = await this.targets.check(d.url, d.allowLoopback, deadline);
      statusCode = await this.post(url, addresses[0], this.headers(d, started), d.body, deadline);
      if (statusCode < 200 || statusCode > 299) error = 'http_status';
    } catch (e) {
      error = attemptError(e, deadline);
    }
    const attempt: WebhookAttempt = {
      attemptedAt: started.toISOString(),
      statusCode,
      error,
      durationMs: Math.round(performance.now() - t0),
    };
    const now = this.clock.now();
    const keep = WEBHOOK_LIMITS.attemptsPerDelivery;
    this.results.inc({ result: error ?? 'delivered' });
    if (!error) {
      await this.webhooks.recordAttempt(d.endpointId, d.messageId, attempt, { status: 'succeeded' }, now, keep);
      await this.webhooks.markEndpointHealthy(d.endpointId);
      return;
    }
    const outcome = this.next(d.attempts + 1, now);
    await this.webhooks.recordAttempt(d.endpointId, d.messageId, attempt, outcome, now, keep);
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

  /** Standard Webhooks headers; during a rotation's overlap both secrets sign (space-separated). */
  private headers(d: ClaimedDelivery, at: Date): Record<string, string> {
    const sealed = [d.secretSealed];
    if (d.previousSecretSealed && d.previousSecretExpiresAt && d.previousSecretExpiresAt > at) sealed.push(d.previousSecretSealed);
    const signature = sealed.map((s) => new Webhook(this.secrets.open(s)).sign(d.messageId, at, d.body)).join(' ');
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': d.messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
  }

  /**
   * POSTs to `address` (already checked) under the URL's host name (TLS verifies the certificate
   * for the name). `deadline` ends the whole exchange up to the answer's status line; the
   * answer's body is read and dropped (under the same deadline), never stored. Redirects are not
   * followed: a 3xx fails.
   */
  private post(url: URL, address: string, headers: Record<string, string>, body: string, deadline: AbortSignal): Promise<number> {
    deadline.throwIfAborted();
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<number>((resolve, reject) => {
      const req = client.request(url, {
        method: 'POST',
        agent: this.agents[url.protocol as 'http:' | 'https:'],
        lookup: pinnedLookup(() => Promise.resolve([address])),
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      });
      const onDeadline = () => req.destroy(new DeliveryTimeout());
      const done = () => deadline.removeEventListener('abort', onDeadline);
      deadline.addEventListener('abort', onDeadline, { once: true });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.on('end', done);
        res.on('close', done);
        res.resume();
      });
      req.on('error', (e) => {
        done();
        reject(e);
      });
      req.end(body);
    });
  }
}

/** Our word for a failed attempt; the deadline's passing is a timeout whatever step it stopped. */
function attemptError(e: unknown, deadline: AbortSignal): WebhookAttempt['error'] {
  if (e instanceof TargetRefused) return 'target_not_allowed';
  if (deadline.aborted || e instanceof DeliveryTimeout) return 'timeout';
  if (e instanceof HostResolutionError && e.reason === 'timeout') return 'timeout';
  return 'connection_failed';
}
