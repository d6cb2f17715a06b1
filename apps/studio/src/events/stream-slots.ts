import { AppConfig, InjectRedis, isInfrastructureError, RandomSource, RedisCircuit } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { STUDIO_CONFIG } from '../studio.config';
import { Redis } from 'ioredis';

/**
 * How long a stream holds its place without being refreshed. The hub refreshes its streams every
 * second, so only a replica that died (or lost Redis) lets a lease run out: its streams' places
 * come free within this long. Also the Retry-After of a refused stream.
 */
export const STREAM_LEASE_MS = 10_000;

/** An open stream's place: the session it belongs to and its id (unique across replicas). */
export interface StreamSlot {
  sessionId: string;
  streamId: string;
}

/**
 * KEYS[1] the session's sorted set (stream id → lease end, ms); ARGV: now, lease end, limit,
 * stream id, key TTL. Drops expired leases, then takes a place if one is free: 1, else 0.
 */
const CLAIM = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/**
 * The places of a session's open event streams, shared by every studio replica: a sorted set per
 * session in Redis whose members are stream ids scored by the end of their lease. A stream takes
 * its place when it opens (atomically, so replicas racing for the last place cannot both win),
 * keeps it by the hub's refresh every second, and gives it back when it closes, however it closes;
 * a replica that dies without giving its places back loses them when their leases run out.
 * When Redis cannot answer, a session may hold the limit in each replica (counted in the process)
 * rather than lose its studio: the same choice as the rate limits' (docs/operations.md, "Outages").
 */
@Injectable()
export class StreamSlots {
  private readonly logger = new Logger(StreamSlots.name);
  private readonly keyPrefix: string;
  /** Makes this process's stream ids unique among replicas. */
  private readonly processTag: string;
  private sequence = 0;
  readonly limit: number;

  constructor(
    config: AppConfig,
    @InjectRedis() private readonly redis: Redis,
    private readonly circuit: RedisCircuit,
    random: RandomSource,
  ) {
    this.keyPrefix = `${config.queuePrefix}:studio:streams:`;
    this.limit = config.slice(STUDIO_CONFIG).eventStreams;
    this.processTag = random.bytes(9).toString('base64url');
  }

  newStreamId(): string {
    return `${this.processTag}:${++this.sequence}`;
  }

  /**
   * Takes one of the session's places for the stream; false when they are all taken. `openHere`
   * counts the session's streams open in this process, the limit used while Redis cannot answer.
   */
  async claim(slot: StreamSlot, openHere: number): Promise<boolean> {
    const now = Date.now();
    try {
      const taken = await this.circuit.run(() =>
        this.redis.eval(CLAIM, 1, this.key(slot.sessionId), now, now + STREAM_LEASE_MS, this.limit, slot.streamId, 2 * STREAM_LEASE_MS),
      );
      return taken === 1;
    } catch (e) {
      if (!isInfrastructureError(e)) throw e;
      this.logger.warn(`stream places unavailable, counted in this process: ${(e as Error).message}`);
      return openHere < this.limit;
    }
  }

  /** Extends the leases of streams still open (the hub, every second). */
  async refresh(slots: StreamSlot[]): Promise<void> {
    if (slots.length === 0) return;
    const until = Date.now() + STREAM_LEASE_MS;
    const batch = this.redis.multi();
    // Re-added if a lease ran out meanwhile (Redis away for a while): an open stream holds a place.
    for (const s of slots) batch.zadd(this.key(s.sessionId), until, s.streamId);
    for (const id of new Set(slots.map((s) => s.sessionId))) batch.pexpire(this.key(id), 2 * STREAM_LEASE_MS);
    await this.circuit.run(() => batch.exec());
  }

  /** Gives the places of closed streams back. */
  async release(slots: StreamSlot[]): Promise<void> {
    if (slots.length === 0) return;
    const batch = this.redis.multi();
    for (const s of slots) batch.zrem(this.key(s.sessionId), s.streamId);
    await this.circuit.run(() => batch.exec());
  }

  private key(sessionId: string): string {
    return `${this.keyPrefix}${sessionId}`;
  }
}
