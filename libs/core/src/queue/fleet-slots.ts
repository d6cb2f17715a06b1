import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../config';
import { REDIS } from '../redis';

/** A worker's entry lives this long unless refreshed (every REFRESH_MS): a killed worker drops out by itself. */
export const FLEET_ENTRY_TTL_MS = 30_000;
export const FLEET_REFRESH_MS = 10_000;

/**
 * How many jobs the whole worker fleet runs at once: each worker process records its
 * concurrency in one Redis hash with an expiry time and refreshes it; readers sum the live
 * entries. What admission (libs/operations) sizes its buffer by.
 */
@Injectable()
export class FleetSlots {
  private readonly key: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.key = `${config.queuePrefix}:fleet-slots`;
  }

  async register(workerId: string, slots: number): Promise<void> {
    await this.redis.hset(this.key, workerId, `${slots}:${Date.now() + FLEET_ENTRY_TTL_MS}`);
  }

  async unregister(workerId: string): Promise<void> {
    await this.redis.hdel(this.key, workerId);
  }

  /** The live workers' slots summed; expired entries (killed workers) are dropped on the way. */
  async total(): Promise<number> {
    const entries = await this.redis.hgetall(this.key);
    const now = Date.now();
    let total = 0;
    const expired: string[] = [];
    for (const [worker, value] of Object.entries(entries)) {
      const [slots, expiresAt] = value.split(':').map(Number);
      if (expiresAt > now) total += slots;
      else expired.push(worker);
    }
    if (expired.length > 0) await this.redis.hdel(this.key, ...expired);
    return total;
  }
}
