import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '../config';
import { createRedis, REDIS } from './redis-connection';
import { RedisCircuit } from './redis-circuit';

/** What a subscriber hears: each message, and each moment from which messages may have been missed. */
export interface BroadcastHandler {
  message(text: string): void;
  /**
   * The channel is (again) subscribed after a time in which it was not: at the first subscription
   * and after every reconnection. Whatever was published meanwhile was lost: re-read the state.
   */
  resubscribed(): void;
}

/** How often the subscriber's connection proves it is alive, and how long its answer may take. */
const PING_EVERY_MS = 15_000;
const PING_TIMEOUT_MS = 5_000;

/**
 * Redis pub/sub for news that other processes act on at once (a change committed elsewhere), on
 * one subscriber connection per process. At most once: a message published while a subscriber is
 * disconnected, or by a process that died between its commit and its publish, never arrives. So
 * every subscriber is told when it is subscribed again (`resubscribed`) and must then re-read what
 * it watches, and must keep a slow sweep of its own for what a publisher failed to send.
 * A connection that went quiet without closing (a network partition) is found by a ping every
 * 15 s and replaced, which counts as a reconnection.
 */
@Injectable()
export class Broadcasts implements OnApplicationShutdown {
  private readonly logger = new Logger(Broadcasts.name);
  private readonly handlers = new Map<string, Set<BroadcastHandler>>();
  private subscriber: Redis | null = null;
  private pinger: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly circuit: RedisCircuit,
  ) {}

  /**
   * Publishes on the commands connection, through the circuit breaker. Never throws: a message
   * that could not be sent is logged (debug: an outage is the breaker's to report) and left to the
   * subscribers' sweeps.
   */
  publish(channel: string, text: string): void {
    this.circuit
      .run(() => this.redis.publish(channel, text))
      .catch((e: Error) => this.logger.debug(`broadcast on ${channel} not sent: ${e.message}`));
  }

  /** Listens on `channel` until the returned function is called (or the process stops). */
  subscribe(channel: string, handler: BroadcastHandler): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    const subscriber = this.connection();
    // Once ready, every channel is subscribed by the ready handler; a later one is added here.
    if (subscriber.status === 'ready') void this.subscribeAll(subscriber, [channel], [handler]);
    return () => {
      set.delete(handler);
      if (set.size > 0) return;
      this.handlers.delete(channel);
      if (this.subscriber?.status === 'ready') this.subscriber.unsubscribe(channel).catch(() => undefined);
    };
  }

  onApplicationShutdown(): void {
    if (this.pinger) clearInterval(this.pinger);
    this.pinger = null;
    this.subscriber?.disconnect();
    this.subscriber = null;
    this.handlers.clear();
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    // Subscriptions are renewed by the ready handler, which then tells the handlers of the gap.
    // Named with the queue prefix, so an operator (or a test) can tell one deployment's subscribers apart.
    const subscriber = createRedis(this.config, 'subscriber', `broadcasts:${this.config.queuePrefix}`, { autoResubscribe: false });
    subscriber.on('message', (channel: string, text: string) => {
      for (const handler of this.handlers.get(channel) ?? []) this.deliver(() => handler.message(text), channel);
    });
    subscriber.on('ready', () => void this.subscribeAll(subscriber, [...this.handlers.keys()]));
    this.pinger = setInterval(() => this.ping(subscriber), PING_EVERY_MS);
    this.pinger.unref();
    this.subscriber = subscriber;
    return subscriber;
  }

  /** Subscribes `channels`, then tells their handlers (all of them, or `only`) that they may have missed messages. */
  private async subscribeAll(subscriber: Redis, channels: string[], only?: BroadcastHandler[]): Promise<void> {
    if (channels.length === 0) return;
    try {
      await subscriber.subscribe(...channels);
    } catch (e) {
      // The connection dropped again: its next ready handler subscribes them.
      this.logger.debug(`subscribing to ${channels.join(', ')} failed: ${(e as Error).message}`);
      return;
    }
    for (const channel of channels) {
      for (const handler of only ?? this.handlers.get(channel) ?? []) this.deliver(() => handler.resubscribed(), channel);
    }
  }

  private deliver(call: () => void, channel: string): void {
    try {
      call();
    } catch (e) {
      this.logger.error(`a handler of ${channel} failed: ${(e as Error).message}`);
    }
  }

  /** A subscriber that does not answer a ping in time is dropped and reconnected. */
  private ping(subscriber: Redis): void {
    if (subscriber.status !== 'ready') return;
    let answered = false;
    const timer = setTimeout(() => {
      if (answered || subscriber !== this.subscriber) return;
      this.logger.warn(`the broadcast subscriber did not answer a ping within ${PING_TIMEOUT_MS} ms: reconnecting`);
      subscriber.disconnect(true);
    }, PING_TIMEOUT_MS);
    timer.unref();
    subscriber
      .ping()
      .catch(() => undefined)
      .finally(() => {
        answered = true;
        clearTimeout(timer);
      });
  }
}
