import { AppConfig, InjectRedis, isInfrastructureError, RandomSource, RedisCircuit } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { STUDIO_CONFIG } from '../studio.config';

/**
 * How long a studio process counts as alive after its last heartbeat. Only a process that died
 * (or lost Redis for this long) misses it: its streams' places come free within this long. Also
 * the Retry-After of a refused stream.
 */
export const STREAM_LEASE_MS = 10_000;

/** The heartbeat: four per lease, so one or two late beats never make a live process look dead. */
const HEARTBEAT_MS = STREAM_LEASE_MS / 4;

/** A process whose heartbeat stopped this long ago is dropped from the list of processes altogether. */
const FORGET_PROCESS_MS = 24 * 3600_000;

/** A session's list of places outlives its expiry by this much; an extension moves it (`prolong`). */
const PLACES_KEPT_BEYOND_EXPIRY_MS = 60_000;

/** An open stream's place: the session it belongs to and its id (`<process tag>:<n>`, unique across replicas). */
export interface StreamSlot {
  sessionId: string;
  streamId: string;
}

/** The milliseconds of Redis's own clock, so replicas whose clocks differ agree on who is alive. */
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS[1] the session's set of stream ids, KEYS[2] the processes' heartbeats (tag → ms); ARGV:
 * limit, stream id, this process's tag, lease ms, the set's TTL ms. Takes a place if one is free
 * (1, else 0). At the limit, places held by processes whose heartbeat is older than the lease are
 * dropped first: a dead replica's streams stop counting without anyone refreshing anything.
 */
const CLAIM = `${NOW}
redis.call('ZADD', KEYS[2], now, ARGV[3])
local limit = tonumber(ARGV[1])
if redis.call('SCARD', KEYS[1]) >= limit then
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    local beat = redis.call('ZSCORE', KEYS[2], string.match(member, '^[^:]+'))
    if not beat or tonumber(beat) < now - tonumber(ARGV[4]) then redis.call('SREM', KEYS[1], member) end
  end
  if redis.call('SCARD', KEYS[1]) >= limit then return 0 end
end
redis.call('SADD', KEYS[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 1`;

/** KEYS[1] the processes' heartbeats; ARGV: this process's tag, how old a heartbeat is forgotten (ms). */
const BEAT = `${NOW}
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return 1`;

/** KEYS[1] a session's set; ARGV[1] the TTL it must have at least (ms). */
const PROLONG = `if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return 1`;

/**
 * The places of a session's open event streams, shared by every studio replica: a set per session
 * in Redis of the ids of its open streams, each id naming the process that holds it. A stream takes
 * its place when it opens (atomically, so replicas racing for the last place cannot both win) and
 * gives it back when it closes, however it closes. Nothing is refreshed per stream: each process
 * keeps one heartbeat (a score in one sorted set, every 2.5 s), and a claim that finds the session
 * at its limit drops the places of processes whose heartbeat is older than the lease (10 s) — a
 * replica that died without giving its places back loses them then.
 * When Redis cannot answer, a session may hold the limit in each replica (counted in the process)
 * rather than lose its studio: the same choice as the rate limits' (docs/operations.md, "Outages");
 * such a stream's place is written at the next heartbeat that reaches Redis.
 */
@Injectable()
export class StreamSlots {
  private readonly logger = new Logger(StreamSlots.name);
  private readonly keyPrefix: string;
  private readonly processes: string;
  /** Makes this process's stream ids unique among replicas; its heartbeat's member. */
  private readonly processTag: string;
  private sequence = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  /** Streams opened while Redis could not answer: their places are written once it can. */
  private readonly unrecorded = new Map<string, StreamSlot & { ttlMs: number }>();
  readonly limit: number;

  constructor(
    config: AppConfig,
    @InjectRedis() private readonly redis: Redis,
    private readonly circuit: RedisCircuit,
    random: RandomSource,
  ) {
    this.keyPrefix = `${config.queuePrefix}:studio:streams:`;
    this.processes = `${config.queuePrefix}:studio:processes`;
    this.limit = config.slice(STUDIO_CONFIG).eventStreams;
    this.processTag = random.bytes(9).toString('base64url');
  }

  newStreamId(): string {
    return `${this.processTag}:${++this.sequence}`;
  }

  /** Starts this process's heartbeat (one timer, whatever is open). */
  start(): void {
    if (this.heartbeat) return;
    void this.beat();
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /**
   * Takes one of the session's places for the stream until `expiresAt` (ms, the session's end);
   * false when they are all taken. `openHere` counts the session's streams open in this process,
   * the limit used while Redis cannot answer.
   */
  async claim(slot: StreamSlot, expiresAt: number, openHere: number): Promise<boolean> {
    const ttlMs = ttlUntil(expiresAt);
    try {
      const taken = await this.circuit.run(() =>
        this.redis.eval(
          CLAIM,
          2,
          this.key(slot.sessionId),
          this.processes,
          this.limit,
          slot.streamId,
          this.processTag,
          STREAM_LEASE_MS,
          ttlMs,
        ),
      );
      return taken === 1;
    } catch (e) {
      if (!isInfrastructureError(e)) throw e;
      this.logger.warn(`stream places unavailable, counted in this process: ${(e as Error).message}`);
      if (openHere >= this.limit) return false;
      this.unrecorded.set(slot.streamId, { ...slot, ttlMs });
      return true;
    }
  }

  /** The session was extended: its places are kept until its new end. */
  async prolong(sessionId: string, expiresAt: number): Promise<void> {
    await this.circuit.run(() => this.redis.eval(PROLONG, 1, this.key(sessionId), ttlUntil(expiresAt)));
  }

  /** Gives the places of closed streams back, in one round trip. */
  async release(slots: StreamSlot[]): Promise<void> {
    for (const s of slots) this.unrecorded.delete(s.streamId);
    if (slots.length === 0) return;
    const batch = this.redis.pipeline();
    for (const s of slots) batch.srem(this.key(s.sessionId), s.streamId);
    await this.circuit.run(() => batch.exec());
  }

  /** The process stops: its heartbeat goes, so nobody waits out its lease (its streams were released). */
  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.unrecorded.clear();
    await this.circuit.run(() => this.redis.zrem(this.processes, this.processTag));
  }

  private async beat(): Promise<void> {
    try {
      await this.circuit.run(() => this.redis.eval(BEAT, 1, this.processes, this.processTag, FORGET_PROCESS_MS));
      if (this.unrecorded.size > 0) await this.recordUnrecorded();
    } catch (e) {
      // Redis being away is the circuit breaker's to report; the places wait for the next beat.
      if (!isInfrastructureError(e)) this.logger.warn(`stream heartbeat failed: ${(e as Error).message}`);
    }
  }

  /** Streams opened during an outage hold a place once Redis answers again (over the limit if need be: they are open). */
  private async recordUnrecorded(): Promise<void> {
    const slots = [...this.unrecorded.values()];
    const batch = this.redis.pipeline();
    for (const s of slots) {
      batch.sadd(this.key(s.sessionId), s.streamId);
      batch.eval(PROLONG, 1, this.key(s.sessionId), s.ttlMs);
    }
    await this.circuit.run(() => batch.exec());
    for (const s of slots) this.unrecorded.delete(s.streamId);
  }

  private key(sessionId: string): string {
    return `${this.keyPrefix}${sessionId}`;
  }
}

function ttlUntil(expiresAt: number): number {
  return Math.max(expiresAt - Date.now(), 0) + PLACES_KEPT_BEYOND_EXPIRY_MS;
}
