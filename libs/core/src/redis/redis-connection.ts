import { Inject } from '@nestjs/common';
import IORedis, { Redis, RedisOptions } from 'ioredis';
import { AppConfig } from '../config';

export const REDIS = Symbol('REDIS');
export const InjectRedis = () => Inject(REDIS);

/**
 * Connection options per use. Request-path commands fail fast (the caller answers 503 or falls
 * back) instead of queueing for as long as Redis is away; BullMQ's blocking connections must
 * never time out, which BullMQ requires with `maxRetriesPerRequest: null`. `commandTimeoutMs` is
 * REDIS_COMMAND_TIMEOUT_MS.
 */
export function redisOptions(purpose: 'commands' | 'bullmq' | 'subscriber', commandTimeoutMs: number): RedisOptions {
  const base: RedisOptions = {
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  };
  if (purpose === 'commands') return { ...base, maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs, enableOfflineQueue: true };
  return { ...base, maxRetriesPerRequest: null, enableOfflineQueue: true };
}

export function createRedis(
  config: AppConfig,
  purpose: 'commands' | 'bullmq' | 'subscriber',
  name: string,
  extra: RedisOptions = {},
): Redis {
  const client = new IORedis(config.redis.url, {
    ...redisOptions(purpose, config.redis.commandTimeoutMs),
    connectionName: `scene-studio:${name}`,
    ...extra,
  });
  // Without a listener ioredis prints every failed reconnect as an unhandled error event.
  client.on('error', () => undefined);
  return client;
}
