import { AppConfig, bearerToken, createRedis, CredentialLookups, InjectRedis, LookupCaller } from '@app/core';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { hashApiKey, isWellFormedApiKey } from './api-key';
import { ApiKeysRepository } from './organizations.repository';

/** Who is calling: attached to every authenticated partner request. */
export interface Principal {
  organizationId: string;
  keyId: string;
  /** A test organization (sk_test_ keys, localhost embed origins). */
  isTest: boolean;
}

const MISS = Symbol('miss');
type Entry = Principal | typeof MISS;

/**
 * Verifies API keys without a database round trip per request: verified keys (and unknown
 * ones, so repeating one bad key cannot hammer Postgres) are cached for at most
 * API_KEY_CACHE_TTL_SECONDS. Revocation is broadcast on Redis so every process drops the key at
 * once; the TTL bounds the delay to 5 seconds even when that broadcast is missed. A lookup of a
 * key not found lately needs room in its caller's address budget, and a miss spends one of it
 * (CredentialLookups), so a flood of ever new keys from one address stops short of the database
 * while valid keys behind the same address are never charged.
 */
@Injectable()
export class ApiKeyAuthenticator implements OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly cache: LRUCache<string, { entry: Entry }> | null;
  private readonly channel: string;
  private subscriber: Redis | null = null;

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly lookups: CredentialLookups,
    private readonly config: AppConfig,
    @InjectRedis() private readonly redis: Redis,
  ) {
    this.channel = `${config.queuePrefix}:api-keys:revoked`;
    this.cache = config.apiKeyCacheTtlMs > 0 ? new LRUCache({ max: 50_000, ttl: config.apiKeyCacheTtlMs, ttlAutopurge: false }) : null;
  }

  /**
   * The principal for an Authorization header value, or null for a missing, malformed, unknown or
   * revoked key. Throws `RateLimitExceeded` when the key needs a lookup and `caller` has spent its
   * budget for lookups that find nothing, or this lookup found nothing past it.
   */
  async authenticate(authorization: string | string[] | undefined, caller: LookupCaller): Promise<Principal | null> {
    const key = bearerToken(authorization);
    if (!key || !isWellFormedApiKey(key)) return null;
    const hash = hashApiKey(key);
    const cached = this.cache?.get(hash);
    if (cached) return cached.entry === MISS ? null : cached.entry;
    this.listen();
    const found = await this.lookups.lookup(caller, hash, () => this.keys.findActiveByHash(hash));
    this.cache?.set(hash, { entry: found ?? MISS });
    return found;
  }

  /** Drops a revoked key here and tells every other process to do the same. */
  async forget(keyId: string): Promise<void> {
    this.evict(keyId);
    try {
      await this.redis.publish(this.channel, keyId);
    } catch (e) {
      this.logger.warn(`revocation broadcast failed; other processes drop the key when their cache expires: ${(e as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscriber?.disconnect();
  }

  private evict(keyId: string): void {
    if (!this.cache) return;
    for (const [hash, { entry }] of this.cache.entries()) {
      if (entry !== MISS && entry.keyId === keyId) this.cache.delete(hash);
    }
  }

  /** Subscribes lazily: only processes that authenticate need to hear about revocations. */
  private listen(): void {
    if (this.subscriber || !this.cache) return;
    this.subscriber = createRedis(this.config, 'subscriber', 'api-key-revocations');
    this.subscriber.on('message', (_channel: string, keyId: string) => this.evict(keyId));
    this.subscriber.subscribe(this.channel).catch((e: Error) => this.logger.warn(`cannot subscribe to revocations: ${e.message}`));
  }
}
