import { Clock, MetricsService } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { EndpointHealthGroup, WebhookHealthRepository } from './webhook-health.repository';

export const ENDPOINT_STATES = ['healthy', 'failing', 'disabled_failing', 'disabled_by_partner'] as const;
export type EndpointState = (typeof ENDPOINT_STATES)[number];

/** An endpoint's health as an operator reads it; every state is reported, 0 when none is in it. */
export function endpointStates(groups: EndpointHealthGroup[]): Map<EndpointState, number> {
  const states = new Map<EndpointState, number>(ENDPOINT_STATES.map((s) => [s, 0]));
  for (const g of groups) {
    const state: EndpointState = g.enabled
      ? g.failing
        ? 'failing'
        : 'healthy'
      : g.disabledReason === 'failing'
        ? 'disabled_failing'
        : 'disabled_by_partner';
    states.set(state, states.get(state)! + g.count);
  }
  return states;
}

/**
 * Webhook health on the worker's /metrics, read at scrape time from PostgreSQL:
 * `webhook_endpoints{state}` (healthy, failing: its recent attempts failed; disabled_failing:
 * disabled after WEBHOOK_DISABLE_AFTER_SECONDS of failures; disabled_by_partner) and
 * `webhook_oldest_due_delivery_seconds` (how late the oldest due, unclaimed delivery is: the
 * dispatchers' lag, 0 when they keep up). Registered by the worker only; every worker reports the
 * same figures, so aggregate with `max`. A scrape during a database outage leaves the first empty
 * and the second NaN.
 */
@Injectable()
export class WebhookMetrics {
  private readonly logger = new Logger(WebhookMetrics.name);

  constructor(repository: WebhookHealthRepository, clock: Clock, metrics: MetricsService) {
    const quietly = <T>(p: Promise<T>): Promise<T | null> =>
      p.catch((e: unknown) => {
        this.logger.warn(`Webhook gauges left empty this scrape: ${e instanceof Error ? e.constructor.name : 'error'}`);
        return null;
      });
    metrics.gauge('webhook_endpoints', 'Live webhook endpoints by health', ['state'] as const, async function () {
      this.reset();
      const groups = await quietly(metrics.oneAtATime(() => repository.endpointHealth()));
      if (groups) for (const [state, n] of endpointStates(groups)) this.set({ state }, n);
    });
    metrics.gauge(
      'webhook_oldest_due_delivery_seconds',
      'How long the oldest due webhook delivery to an enabled endpoint has waited for a dispatcher (0: none waits)',
      [] as const,
      async function () {
        const now = clock.now();
        const due = await quietly(metrics.oneAtATime(() => repository.oldestDue(now)).then((at) => ({ at })));
        // Unknown while the database is away (a gauge without labels cannot be left out).
        this.set(!due ? NaN : due.at ? Math.max(0, (now.getTime() - due.at.getTime()) / 1000) : 0);
      },
    );
  }
}
