import { Clock, MetricsService } from '@app/core';
import { Injectable } from '@nestjs/common';
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
  constructor(repository: TenancyRepository, clock: Clock, metrics: MetricsService) {
    let snapshot: Promise<{ organizationId: string | null; started: number; cost: number }[]> | null = null;
    // One query serves both gauges of a scrape.
    const read = () =>
      (snapshot ??= repository
        .busiest(utcDay(clock.now()), METRICS_TOP_ORGANIZATIONS)
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
