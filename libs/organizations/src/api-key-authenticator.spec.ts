import { AppConfig, CredentialLookups, loadConfig, RateLimitExceeded } from '@app/core';
import { Redis } from 'ioredis';
import { formatApiKey, hashApiKey } from './api-key';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { ApiKeysRepository } from './organizations.repository';

describe(ApiKeyAuthenticator.name, () => {
  const key = formatApiKey('test', Buffer.alloc(32, 1));
  const principal = { keyId: 'key_1', organizationId: 'org_1', isTest: true };
  let lookups: string[];
  let active: boolean;
  let sut: ApiKeyAuthenticator;
  let config: AppConfig;
  const published: string[] = [];
  /** The misses charged to an address budget, what was found (free from then on), and whether the budget is spent. */
  let charged: Array<[string | null, string]>;
  let remembered: Set<string>;
  let budgetSpent: boolean;

  beforeEach(() => {
    lookups = [];
    active = true;
    config = loadConfig({}, {});
    const repo = {
      findActiveByHash: async (hash: string) => {
        lookups.push(hash);
        return active && hash === hashApiKey(key) ? principal : null;
      },
    } as unknown as ApiKeysRepository;
    const redis = { publish: async (_c: string, m: string) => void published.push(m) } as unknown as Redis;
    charged = [];
    remembered = new Set();
    budgetSpent = false;
    // As CredentialLookups: found lately is free; otherwise refused once the budget is spent, and
    // only a miss is charged.
    const credentialLookups = {
      lookup: async <T>(caller: string | null, credential: string, find: () => Promise<T | null>) => {
        if (remembered.has(credential)) return find();
        if (budgetSpent) throw new RateLimitExceeded({ limit: 1, remaining: 0, resetSeconds: 30, windowSeconds: 60 });
        const found = await find();
        if (found !== null) remembered.add(credential);
        else charged.push([caller, credential]);
        return found;
      },
    } as unknown as CredentialLookups;
    sut = new ApiKeyAuthenticator(repo, credentialLookups, config, redis);
    // No real subscriber in a unit test.
    (sut as unknown as { listen: () => void }).listen = () => undefined;
  });

  it('looks a key up once, then serves it from the cache', async () => {
    for (let i = 0; i < 5; i++) expect(await sut.authenticate(`Bearer ${key}`, '203.0.113.7')).toEqual(principal);
    expect(lookups).toHaveLength(1);
  });

  it('never looks up malformed keys', async () => {
    expect(await sut.authenticate('Bearer nope', '203.0.113.7')).toBeNull();
    expect(await sut.authenticate(undefined, '203.0.113.7')).toBeNull();
    expect(lookups).toHaveLength(0);
  });

  it('caches unknown keys too, so a flood of bad keys costs one query each per TTL', async () => {
    const unknown = formatApiKey('live', Buffer.alloc(32, 2));
    expect(await sut.authenticate(`Bearer ${unknown}`, '203.0.113.7')).toBeNull();
    expect(await sut.authenticate(`Bearer ${unknown}`, '203.0.113.7')).toBeNull();
    expect(lookups).toHaveLength(1);
  });

  it('forgets a revoked key at once and broadcasts the revocation', async () => {
    await sut.authenticate(`Bearer ${key}`, '203.0.113.7');
    active = false;
    await sut.forget('key_1');
    expect(await sut.authenticate(`Bearer ${key}`, '203.0.113.7')).toBeNull();
    expect(published).toContain('key_1');
  });

  it("charges the caller's address budget for a key not found, never for a valid or a cached one", async () => {
    const unknown = formatApiKey('live', Buffer.alloc(32, 3));
    await sut.authenticate(`Bearer ${unknown}`, '203.0.113.7');
    await sut.authenticate(`Bearer ${key}`, '203.0.113.7');
    await sut.authenticate(`Bearer ${key}`, '203.0.113.7');
    expect(charged).toEqual([['203.0.113.7', hashApiKey(unknown)]]);
    expect([...remembered]).toEqual([hashApiKey(key)]);
  });

  it('refuses a new key without a lookup once the address budget is spent, and keeps serving a valid key', async () => {
    await sut.authenticate(`Bearer ${key}`, '203.0.113.7');
    budgetSpent = true;
    const unknown = formatApiKey('live', Buffer.alloc(32, 4));
    await expect(sut.authenticate(`Bearer ${unknown}`, '203.0.113.7')).rejects.toBeInstanceOf(RateLimitExceeded);
    expect(lookups).toEqual([hashApiKey(key)]);
    // Past the cache's TTL the valid key is looked up again, free: it was found lately.
    (sut as unknown as { cache: { clear(): void } }).cache.clear();
    expect(await sut.authenticate(`Bearer ${key}`, '203.0.113.7')).toEqual(principal);
    expect(lookups).toEqual([hashApiKey(key), hashApiKey(key)]);
  });
});
