import { ManualClock, MetricsService } from '@app/core';
import { EndpointHealthGroup, WebhookHealthRepository } from './webhook-health.repository';
import { endpointStates, WebhookMetrics } from './webhook-metrics';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

function start(repository: Partial<WebhookHealthRepository>) {
  const metrics = new MetricsService();
  new WebhookMetrics(repository as WebhookHealthRepository, new ManualClock(NOW), metrics);
  return metrics;
}

describe(endpointStates.name, () => {
  it('names each endpoint’s health, every state present', () => {
    const groups: EndpointHealthGroup[] = [
      { enabled: true, disabledReason: null, failing: false, count: 7 },
      { enabled: true, disabledReason: null, failing: true, count: 2 },
      { enabled: false, disabledReason: 'failing', failing: true, count: 1 },
      { enabled: false, disabledReason: 'disabled_by_partner', failing: false, count: 3 },
      { enabled: false, disabledReason: 'disabled_by_partner', failing: true, count: 1 },
    ];
    expect(Object.fromEntries(endpointStates(groups))).toEqual({ healthy: 7, failing: 2, disabled_failing: 1, disabled_by_partner: 4 });
    expect(Object.fromEntries(endpointStates([]))).toEqual({ healthy: 0, failing: 0, disabled_failing: 0, disabled_by_partner: 0 });
  });
});

describe(WebhookMetrics.name, () => {
  it('reports endpoints by health and how late the oldest due delivery is', async () => {
    const metrics = start({
      endpointHealth: () => Promise.resolve([{ enabled: true, disabledReason: null, failing: true, count: 2 }]),
      oldestDue: (now: Date) => Promise.resolve(new Date(now.getTime() - 42_000)),
    });
    const { body } = await metrics.render();
    expect(body).toContain('webhook_endpoints{state="failing"} 2');
    expect(body).toContain('webhook_endpoints{state="healthy"} 0');
    expect(body).toContain('webhook_oldest_due_delivery_seconds 42');
  });

  it('reads 0 when nothing is due, and nothing while the database is away', async () => {
    const idle = start({ endpointHealth: () => Promise.resolve([]), oldestDue: () => Promise.resolve(null) });
    expect((await idle.render()).body).toContain('webhook_oldest_due_delivery_seconds 0');
    const away = start({
      endpointHealth: () => Promise.reject(new Error('Connection terminated unexpectedly')),
      oldestDue: () => Promise.reject(new Error('Connection terminated unexpectedly')),
    });
    const { body } = await away.render();
    expect(body).toContain('process_cpu_user_seconds_total');
    // prom-client writes `Nan`, which Prometheus reads as NaN (its parser ignores the case).
    expect(body.split('\n').filter((l) => l.startsWith('webhook_'))).toEqual([
      expect.stringMatching(/^webhook_oldest_due_delivery_seconds nan$/i),
    ]);
  });
});
