import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How long the reads of one scrape may take in all (MetricsService.oneAtATime). */
export const SCRAPE_READ_WITHIN_MS = 2000;

export class ScrapeReadTimeout extends Error {
  override name = 'ScrapeReadTimeout';

  constructor(ms: number) {
    super(`not read within ${ms} ms of the scrape`);
  }
}

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
   *
   * Each read must be done within `withinMs` of being queued, or it fails with
   * ScrapeReadTimeout (not started, if the ones before it took that long) and the queue moves on:
   * a hung database leaves those gauges empty while the scrape still answers in time with the
   * metrics that show the outage (Prometheus gives up on a scrape after 10 s by default).
   */
  oneAtATime<T>(read: () => Promise<T>, withinMs = SCRAPE_READ_WITHIN_MS): Promise<T> {
    const deadline = performance.now() + withinMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ScrapeReadTimeout(withinMs)), withinMs);
    });
    const run = this.reading.then(() => (performance.now() >= deadline ? Promise.reject(new ScrapeReadTimeout(withinMs)) : read()));
    const bounded = Promise.race([run, late]).finally(() => clearTimeout(timer));
    this.reading = bounded.catch(() => undefined);
    return bounded;
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
