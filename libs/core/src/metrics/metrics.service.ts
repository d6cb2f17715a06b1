import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * One registry per process (not prom-client's global one), so several applications can live in
 * one test process without "metric already registered" clashes.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route template and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets?: number[]): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L>) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return (this.registry.getSingleMetric(name) as Counter<L>) ?? new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect?: (this: Gauge<L>) => Promise<void> | void,
  ): Gauge<L> {
    return (this.registry.getSingleMetric(name) as Gauge<L>) ?? new Gauge({ name, help, labelNames, collect, registers: [this.registry] });
  }

  private reading: Promise<unknown> = Promise.resolve();

  /**
   * Runs `read` once the reads queued before it have ended. Gauges that read PostgreSQL at scrape
   * time go through here, so that a scrape (prom-client collects every metric at once) holds one
   * pooled connection at a time rather than one per gauge: a worker's pool is sized for its jobs.
   */
  oneAtATime<T>(read: () => Promise<T>): Promise<T> {
    const run = this.reading.then(read, read);
    this.reading = run.catch(() => undefined);
    return run;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
