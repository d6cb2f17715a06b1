import { ManualClock, MetricsService } from '@app/core';
import { TenancyRepository } from './tenancy.repository';
import { UsageMetrics } from './usage-metrics';

/** Only the query the gauges make; PostgreSQL's failure is what is under test. */
function repositoryAnswering(busiest: () => Promise<{ organizationId: string | null; started: number; cost: number }[]>) {
  return { busiest } as unknown as TenancyRepository;
}

describe('UsageMetrics', () => {
  it('a scrape during a database outage still answers, with every other metric and the usage gauges empty', async () => {
    const metrics = new MetricsService();
    let calls = 0;
    new UsageMetrics(
      repositoryAnswering(() => {
        calls += 1;
        return Promise.reject(new Error('Connection terminated unexpectedly'));
      }),
      new ManualClock(Date.UTC(2026, 10, 27)),
      metrics,
    );
    const { body } = await metrics.render();
    expect(body).toContain('process_cpu_user_seconds_total');
    expect(body).toContain('# TYPE tenant_generations_started_today gauge');
    expect(body.split('\n').filter((l) => l.startsWith('tenant_'))).toEqual([]);
    // Both gauges were served by one query.
    expect(calls).toBe(1);
  });

  it('after the outage the next scrape reads the counters again', async () => {
    const metrics = new MetricsService();
    let down = true;
    new UsageMetrics(
      repositoryAnswering(() =>
        down ? Promise.reject(new Error('down')) : Promise.resolve([{ organizationId: 'org_a', started: 3, cost: 7 }]),
      ),
      new ManualClock(Date.UTC(2026, 10, 27)),
      metrics,
    );
    await metrics.render();
    down = false;
    await new Promise((resolve) => setImmediate(resolve));
    const { body } = await metrics.render();
    expect(body).toContain('tenant_generations_started_today{organization="org_a"} 3');
    expect(body).toContain('tenant_provider_cost_units_today{organization="org_a"} 7');
  });
});
