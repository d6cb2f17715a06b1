import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MetricsService } from '../metrics';
import { poolConnections } from './pool-query';

/**
 * The pool's connections at scrape time: a connection some path checked out and never gave back
 * shows as `total − idle` that does not fall back at rest (the fuzz tests check it), and
 * `waiting` as callers queued for one.
 */
@Injectable()
export class DatabasePoolMetrics {
  constructor(@InjectDataSource() db: DataSource, metrics: MetricsService) {
    metrics.gauge('database_pool_connections', "Connections of this process's PostgreSQL pool, by state", ['state'] as const, function () {
      if (!db.isInitialized) return;
      const { total, idle, waiting } = poolConnections(db);
      this.set({ state: 'total' }, total);
      this.set({ state: 'idle' }, idle);
      this.set({ state: 'waiting' }, waiting);
    });
  }
}
