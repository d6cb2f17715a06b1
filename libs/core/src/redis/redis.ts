import { Inject, Injectable, Logger, Module, OnApplicationShutdown, Global } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig } from '../config';
import { Broadcasts } from './broadcasts';
import { createRedis, REDIS } from './redis-connection';
import { RedisCircuit } from './redis-circuit';

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    try {
      await this.redis.quit();
    } catch (e) {
      this.logger.debug(`redis quit failed: ${(e as Error).message}`);
      this.redis.disconnect();
    }
  }
}

@Global()
@Module({
  providers: [
    { provide: REDIS, inject: [AppConfig], useFactory: (c: AppConfig) => createRedis(c, 'commands', 'commands') },
    RedisCloser,
    RedisCircuit,
    Broadcasts,
  ],
  exports: [REDIS, RedisCircuit, Broadcasts],
})
export class RedisModule {}
