import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Takes up to `wanted` starts from a rolling window kept in Redis (a sorted set of start times),
 * atomically for every process that shares it, unless a pause is in force. Redis's own clock is
 * the time, so replicas whose clocks differ still agree. Answers how many were granted and, when
 * fewer than asked, how long until the next one frees (or the pause ends).
 */
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if paused > now then return {0, paused - now} end
local wanted = tonumber(ARGV[3])
local limit = tonumber(ARGV[2])
if limit <= 0 then return {wanted, 0} end
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
local granted = math.max(0, math.min(wanted, limit - used))
for i = 1, granted do redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i) end
redis.call('PEXPIRE', KEYS[1], window)
local wait = 0
if granted < wanted then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  wait = tonumber(oldest[2]) + window - now
end
return {granted, wait}
`;

/** How many could be taken now, and how long until the next frees when none can (nothing is taken). */
const PEEK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if paused > now then return {0, paused - now} end
local limit = tonumber(ARGV[2])
if limit <= 0 then return {-1, 0} end
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local free = limit - redis.call('ZCARD', KEYS[1])
if free > 0 then return {free, 0} end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
`;

/** Extends the pause to `ms` from now, never shortens one already longer. */
const PAUSE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < untilMs then redis.call('SET', KEYS[1], untilMs, 'PX', ARGV[1]) end
return untilMs - now
`;

export interface SlidingWindowOptions {
  /** Redis keys: the window's log and the pause. */
  logKey: string;
  pauseKey: string;
  /** At most `limit` per `windowMs`; a limit of 0 leaves only the pause. */
  limit: number;
  windowMs: number;
}

export class SlidingWindowLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly options: SlidingWindowOptions,
  ) {}

  async take(wanted: number): Promise<{ granted: number; waitMs: number }> {
    if (wanted <= 0) return { granted: 0, waitMs: 0 };
    const o = this.options;
    const [granted, waitMs] = (await this.redis.eval(TAKE, 2, o.logKey, o.pauseKey, o.windowMs, o.limit, wanted, randomUUID())) as [
      number,
      number,
    ];
    return { granted, waitMs };
  }

  /**
   * How many could be taken now (Infinity without a limit), and, when none, how long until one
   * frees or the pause ends. Takes nothing.
   */
  async available(): Promise<{ available: number; waitMs: number }> {
    const o = this.options;
    const [available, waitMs] = (await this.redis.eval(PEEK, 2, o.logKey, o.pauseKey, o.windowMs, o.limit)) as [number, number];
    return { available: available < 0 ? Number.POSITIVE_INFINITY : available, waitMs };
  }

  /** How long the pause in force still lasts (0: none). */
  async pausedMs(): Promise<number> {
    const until = Number((await this.redis.get(this.options.pauseKey)) ?? 0);
    const [seconds, micros] = await this.redis.time();
    return Math.max(0, until - (Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)));
  }

  /** Holds every taker back for `ms` (a provider's Retry-After): no start is granted until then. */
  async pause(ms: number): Promise<void> {
    await this.redis.eval(PAUSE, 1, this.options.pauseKey, Math.max(1, Math.round(ms)));
  }
}
