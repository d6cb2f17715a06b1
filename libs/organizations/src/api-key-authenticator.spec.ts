import { AppConfig, loadConfig } from '@app/core';
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
    sut = new ApiKeyAuthenticator(repo, config, redis);
    // No real subscriber in a unit test.
    (sut as unknown as { listen: () => void }).listen = () => undefined;
  });

  it('looks a key up once, then serves it from the cache', async () => {
    for (let i = 0; i < 5; i++) expect(await sut.authenticate(`Bearer ${key}`)).toEqual(principal);
    expect(lookups).toHaveLength(1);
  });

  it('never looks up malformed keys', async () => {
    expect(await sut.authenticate('Bearer nope')).toBeNull();
    expect(await sut.authenticate(undefined)).toBeNull();
    expect(lookups).toHaveLength(0);
  });

  it('caches unknown keys too, so a flood of bad keys costs one query each per TTL', async () => {
    const unknown = formatApiKey('live', Buffer.alloc(32, 2));
    expect(await sut.authenticate(`Bearer ${unknown}`)).toBeNull();
    expect(await sut.authenticate(`Bearer ${unknown}`)).toBeNull();
    expect(lookups).toHaveLength(1);
  });

  it('forgets a revoked key at once and broadcasts the revocation', async () => {
    await sut.authenticate(`Bearer ${key}`);
    active = false;
    await sut.forget('key_1');
    expect(await sut.authenticate(`Bearer ${key}`)).toBeNull();
    expect(published).toContain('key_1');
  });
});
