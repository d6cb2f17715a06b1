import { Clock, MetricsService } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { TenancyRepository } from './tenancy.repository';
import { utcDay } from './usage.service';

/** Organizations named on /metrics; the rest are summed under `organization="other"`. */
export const METRICS_TOP_ORGANIZATIONS = 20;

/**
 * Per-organization usage on the worker's /metrics, read from the exact counters in PostgreSQL at
 * scrape time: today's generations started and provider cost for the busiest
 * METRICS_TOP_ORGANIZATIONS organizations, everyone else as `other`. The label set stays bounded
 * whatever the number of tenants, and every worker reports the same figures (aggregate them with
 * `max`, not `sum`). Registered by the worker only, so one kind of process answers for them.
 */
@Injectable()
export class UsageMetrics {
  private readonly logger = new Logger(UsageMetrics.name);

  constructor(repository: TenancyRepository, clock: Clock, metrics: MetricsService) {
    let snapshot: Promise<{ organizationId: string | null; started: number; cost: number }[]> | null = null;
    // One query serves both gauges of a scrape. A scrape during a database outage must still
    // answer with every other metric (the ones that show the outage): these two are left empty.
    const read = () =>
      (snapshot ??= metrics
        .oneAtATime(() => repository.busiest(utcDay(clock.now()), METRICS_TOP_ORGANIZATIONS))
        .catch((e: unknown) => {
          this.logger.warn(`Usage gauges left empty this scrape: ${e instanceof Error ? e.constructor.name : 'error'}`);
          return [];
        })
        .finally(() => setImmediate(() => (snapshot = null))));
    metrics.gauge(
      'tenant_generations_started_today',
      'Creations and edits started today (UTC), busiest organizations',
      ['organization'] as const,
      async function () {
        this.reset();
        for (const r of await read()) this.set({ organization: r.organizationId ?? 'other' }, r.started);
      },
    );
    metrics.gauge(
      'tenant_provider_cost_units_today',
      'Provider cost reported today (UTC), busiest organizations',
      ['organization'] as const,
      async function () {
        this.reset();
        for (const r of await read()) this.set({ organization: r.organizationId ?? 'other' }, r.cost);
      },
    );
  }
}
