import { AppConfig, createRedis, InjectRedis, RedisCircuit } from '@app/core';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';

/**
 * Tells the workers' admission that something changed — an operation was accepted, one ended or
 * was cancelled — over Redis pub/sub, so a waiting operation is admitted at once rather than at
 * the next poll. Best effort: a lost signal costs at most one admission poll interval.
 */
@Injectable()
export class AdmissionSignal implements OnApplicationShutdown {
  private readonly logger = new Logger(AdmissionSignal.name);
  readonly channel: string;
  private subscriber: Redis | null = null;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly circuit: RedisCircuit,
    private readonly config: AppConfig,
  ) {
    this.channel = `${config.queuePrefix}:admission`;
  }

  wake(): void {
    this.circuit
      .run(() => this.redis.publish(this.channel, '1'))
      .catch((e: Error) => this.logger.debug(`admission signal not sent: ${e.message}`));
  }

  /** The worker's side: `onWake` runs on every signal, from any process. */
  listen(onWake: () => void): void {
    this.subscriber ??= createRedis(this.config, 'subscriber', 'admission');
    this.subscriber.on('message', () => onWake());
    this.subscriber.subscribe(this.channel).catch((e: Error) => this.logger.warn(`cannot listen for admission signals: ${e.message}`));
  }

  onApplicationShutdown(): void {
    this.subscriber?.disconnect();
  }
}
