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
    // The database's goes through the scrape's queue of reads, like every gauge that reads
    // PostgreSQL: started at once, it would sit in the pool's queue while the pool gauge is read
    // in the same scrape, which would then show a client waiting on every scrape. A database that
    // does not answer within the scrape's budget counts as down.
    const database = () => this.database();
    const redisUp = () => this.redisUp();
    metrics.gauge(
      'dependency_up',
      'Whether PostgreSQL (database) and Redis answer this process within 1 s, as /readyz checks: 1 up, 0 down',
      ['dependency'] as const,
      async function () {
        const [db, cache] = await Promise.all([metrics.oneAtATime(database).catch(() => 'down' as const), redisUp()]);
        this.set({ dependency: 'database' }, db === 'up' ? 1 : 0);
        this.set({ dependency: 'redis' }, cache === 'up' ? 1 : 0);
      },
    );
  }

  async readiness(): Promise<ReadinessReport> {
    const [database, redis] = await Promise.all([this.database(), this.redisUp()]);
    return { ready: database === 'up' && redis === 'up', checks: { database, redis } };
  }

  private database(): Promise<'up' | 'down'> {
    return withTimeout(this.db.query('SELECT 1'), CHECK_TIMEOUT_MS).then(
      () => 'up' as const,
      () => 'down' as const,
    );
  }

  private redisUp(): Promise<'up' | 'down'> {
    return withTimeout(this.redis.ping(), CHECK_TIMEOUT_MS).then(
      () => 'up' as const,
      () => 'down' as const,
    );
  }
}
