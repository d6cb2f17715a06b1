import type { Redis } from 'ioredis';

/**
 * The Redis client ids of the broadcast subscribers of one deployment (one per process that
 * listens: every studio), found by the connection name core's Broadcasts gives them.
 */
export async function broadcastSubscribers(redis: Redis, queuePrefix: string): Promise<string[]> {
  const list = (await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
  return list
    .split('\n')
    .filter((line) => line.includes(` name=scene-studio:broadcasts:${queuePrefix} `))
    .map((line) => /(?:^|\s)id=(\d+)/.exec(line)![1]);
}

/** Drops those connections, as Redis does to a subscriber that falls behind; they reconnect by themselves. */
export async function killBroadcastSubscribers(redis: Redis, queuePrefix: string): Promise<number> {
  const ids = await broadcastSubscribers(redis, queuePrefix);
  for (const id of ids) await redis.call('CLIENT', 'KILL', 'ID', id).catch(() => undefined);
  return ids.length;
}
