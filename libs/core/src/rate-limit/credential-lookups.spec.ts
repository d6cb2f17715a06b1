import { loadConfig } from '../config';
import { MetricsService } from '../metrics';
import { CredentialLookups } from './credential-lookups';
import { RateLimitExceeded, RateLimitPolicy, RateLimits } from './rate-limiter';

/** A budget per caller that counts what was spent, as the shared one would. */
function fakeLimits(limit: number) {
  const spent = new Map<string, number>();
  let policy: RateLimitPolicy | undefined;
  const limits = {
    create: (p: RateLimitPolicy) => {
      policy = p;
      return {
        consume: async (key: string) => {
          const n = (spent.get(key) ?? 0) + 1;
          spent.set(key, n);
          const state = { limit, remaining: Math.max(0, limit - n), resetSeconds: 42, windowSeconds: 60 };
          if (n > limit) throw new RateLimitExceeded(state, p.message);
          return state;
        },
      };
    },
  } as unknown as RateLimits;
  return { limits, spent, policy: () => policy! };
}

describe(CredentialLookups.name, () => {
  const setUp = (limit = 2) => {
    const fake = fakeLimits(limit);
    const sut = new CredentialLookups(
      loadConfig({ UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE: String(limit) }, {}),
      fake.limits,
      new MetricsService(),
    );
    return { sut, ...fake };
  };

  it('is one budget per minute of UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE', () => {
    const { policy } = setUp(7);
    expect(policy()).toMatchObject({ name: 'lookups', limit: 7, windowSeconds: 60 });
  });

  it('spends the caller’s budget on each credential it has not seen found, and refuses past it', async () => {
    const { sut, spent } = setUp(2);
    await sut.admit('203.0.113.7', 'a');
    await sut.admit('203.0.113.7', 'b');
    const refused = await sut.admit('203.0.113.7', 'c').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitExceeded);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 42 });
    // Another address has its own budget.
    await expect(sut.admit('198.51.100.1', 'c')).resolves.toMatchObject({ remaining: 1 });
    expect(spent.get('203.0.113.7')).toBe(3);
  });

  it('never counts a credential a lookup found, nor a caller that is not a network client', async () => {
    const { sut, spent } = setUp(1);
    await sut.admit('203.0.113.7', 'valid');
    sut.remember('valid');
    await expect(sut.admit('203.0.113.7', 'unknown')).rejects.toBeInstanceOf(RateLimitExceeded);
    for (let i = 0; i < 10; i++) await expect(sut.admit('203.0.113.7', 'valid')).resolves.toBeNull();
    await expect(sut.admit(null, 'anything')).resolves.toBeNull();
    expect(spent.get('203.0.113.7')).toBe(2);
  });
});
