import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { MetricsService } from '../metrics';
import { HealthService } from './health.service';

const never = () => new Promise<never>(() => undefined);

function fakes(database: () => Promise<unknown>, redis: () => Promise<unknown>) {
  return { db: { query: database } as unknown as DataSource, redis: { ping: redis } as unknown as Redis };
}

describe(HealthService.name, () => {
  it('reports each dependency on /metrics as dependency_up, read at scrape time', async () => {
    let databaseUp = true;
    const { db, redis } = fakes(
      () => (databaseUp ? Promise.resolve([{ '?column?': 1 }]) : Promise.reject(new Error('ECONNREFUSED'))),
      () => Promise.resolve('PONG'),
    );
    const metrics = new MetricsService();
    const sut = new HealthService(db, redis, metrics);
    expect((await metrics.render()).body).toContain('dependency_up{dependency="database"} 1');
    databaseUp = false;
    const { body } = await metrics.render();
    expect(body).toContain('dependency_up{dependency="database"} 0');
    expect(body).toContain('dependency_up{dependency="redis"} 1');
    expect((await sut.readiness()).checks).toEqual({ database: 'down', redis: 'up' });
  });

  it('counts a dependency that does not answer within 1 s as down, and the scrape still answers', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
    try {
      const { db, redis } = fakes(() => Promise.resolve([]), never);
      const metrics = new MetricsService();
      new HealthService(db, redis, metrics);
      const scrape = metrics.render();
      await jest.advanceTimersByTimeAsync(1000);
      const { body } = await scrape;
      expect(body).toContain('dependency_up{dependency="redis"} 0');
      expect(body).toContain('dependency_up{dependency="database"} 1');
    } finally {
      jest.useRealTimers();
    }
  });
});
