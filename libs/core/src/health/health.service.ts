import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { MetricsService } from '../metrics';
import { InjectRedis } from '../redis';

export interface ReadinessReport {
  ready: boolean;
  checks: { database: 'up' | 'down'; redis: 'up' | 'down' };
}

const CHECK_TIMEOUT_MS = 1000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectRedis() private readonly redis: Redis,
    metrics: MetricsService,
  ) {
    // Readiness as a number Prometheus keeps: /readyz only answers whoever asks at that moment.
    // Checked at scrape time, the same checks /readyz runs (a scrape waits at most their 1 s).
    const readiness = () => this.readiness();
    metrics.gauge(
      'dependency_up',
      'Whether PostgreSQL (database) and Redis answer this process within 1 s, as /readyz checks: 1 up, 0 down',
      ['dependency'] as const,
      async function () {
        const { checks } = await readiness();
        this.set({ dependency: 'database' }, checks.database === 'up' ? 1 : 0);
        this.set({ dependency: 'redis' }, checks.redis === 'up' ? 1 : 0);
      },
    );
  }

  async readiness(): Promise<ReadinessReport> {
    const [database, redis] = await Promise.all([
      withTimeout(this.db.query('SELECT 1'), CHECK_TIMEOUT_MS).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      withTimeout(this.redis.ping(), CHECK_TIMEOUT_MS).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
    ]);
    return { ready: database === 'up' && redis === 'up', checks: { database, redis } };
  }
}
