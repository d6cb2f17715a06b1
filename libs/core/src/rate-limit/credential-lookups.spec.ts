import { loadConfig } from '../config';
import { MetricsService } from '../metrics';
import { CredentialLookups, LOOKUPS_IN_FLIGHT_PER_ADDRESS } from './credential-lookups';
import { RateLimitExceeded, RateLimitPolicy, RateLimits, RateLimitState } from './rate-limiter';

/** A budget per caller that counts what was spent and knows what is left, as the shared one does in one process. */
function fakeLimits(limit: number) {
  const spent = new Map<string, number>();
  let policy: RateLimitPolicy | undefined;
  const state = (key: string): RateLimitState => ({
    limit,
    remaining: Math.max(0, limit - (spent.get(key) ?? 0)),
    resetSeconds: 42,
    windowSeconds: 60,
  });
  const limits = {
    create: (p: RateLimitPolicy) => {
      policy = p;
      return {
        policy: p,
        peek: state,
        consume: async (key: string) => {
          const n = (spent.get(key) ?? 0) + 1;
          spent.set(key, n);
          if (n > limit) throw new RateLimitExceeded(state(key), p.message);
          return state(key);
        },
      };
    },
  } as unknown as RateLimits;
  return { limits, spent, policy: () => policy! };
}

/** A lookup whose answer the test releases: counts how many run at once. */
function gatedFind<T>(answer: T | null) {
  let running = 0;
  let most = 0;
  let calls = 0;
  const gates: Array<() => void> = [];
  const find = async (): Promise<T | null> => {
    calls++;
    running++;
    most = Math.max(most, running);
    await new Promise<void>((resolve) => gates.push(resolve));
    running--;
    return answer;
  };
  /** Opens the gates as lookups reach them until `all` settles. */
  const settle = async <R>(all: Promise<R>): Promise<R> => {
    let done = false;
    void all.finally(() => (done = true)).catch(() => undefined);
    while (!done) {
      for (const open of gates.splice(0)) open();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return all;
  };
  return { find, settle, stats: () => ({ calls, most }) };
}

describe(CredentialLookups.name, () => {
  const ip = '203.0.113.7';
  const setUp = (limit = 2) => {
    const fake = fakeLimits(limit);
    const sut = new CredentialLookups(
      loadConfig({ UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE: String(limit) }, {}),
      fake.limits,
      new MetricsService(),
    );
    return { sut, ...fake };
  };
  const miss = async () => null;
  const hit = async () => 'found';

  it('is one budget per minute of UNKNOWN_CREDENTIAL_LOOKUPS_PER_MINUTE', () => {
    const { policy } = setUp(7);
    expect(policy()).toMatchObject({ name: 'lookups', limit: 7, windowSeconds: 60 });
  });

  it('charges misses only: the budget-th miss is looked up, the next unknown credential is refused without a lookup', async () => {
    const { sut, spent } = setUp(2);
    await expect(sut.lookup(ip, 'a', miss)).resolves.toBeNull();
    // Valid credentials, however many, spend nothing.
    for (let i = 0; i < 50; i++) await expect(sut.lookup(ip, `valid-${i}`, hit)).resolves.toBe('found');
    await expect(sut.lookup(ip, 'b', miss)).resolves.toBeNull();
    expect(spent.get(ip)).toBe(2);
    const find = jest.fn(miss);
    const refused = await sut.lookup(ip, 'c', find).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitExceeded);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 42 });
    expect(find).not.toHaveBeenCalled();
    // A credential found before is still looked up, free; a new valid one is not (it cannot be told from an unknown one).
    await expect(sut.lookup(ip, 'valid-3', hit)).resolves.toBe('found');
    await expect(sut.lookup(ip, 'valid-new', hit)).rejects.toBeInstanceOf(RateLimitExceeded);
    // Another address has its own budget; a caller that is not a network client has none.
    await expect(sut.lookup('198.51.100.1', 'c', miss)).resolves.toBeNull();
    await expect(sut.lookup(null, 'anything', miss)).resolves.toBeNull();
    expect(spent.get(ip)).toBe(2);
    expect(sut.inFlightFor(ip)).toBe(0);
  });

  it('lets no more concurrent misses reach the lookup than the budget has left', async () => {
    const { sut, spent } = setUp(5);
    const gated = gatedFind<string>(null);
    const outcomes = Array.from({ length: 50 }, (_, i) =>
      sut.lookup(ip, `unknown-${i}`, gated.find).then(
        () => 'missed',
        (e: unknown) => (e instanceof RateLimitExceeded ? 'refused' : 'other'),
      ),
    );
    const settled = await gated.settle(Promise.all(outcomes));
    expect(gated.stats().calls).toBe(5);
    expect(settled.filter((o) => o === 'missed')).toHaveLength(5);
    expect(settled.filter((o) => o === 'refused')).toHaveLength(45);
    expect(spent.get(ip)).toBe(5);
    expect(sut.inFlightFor(ip)).toBe(0);
  });

  it(`looks up at most ${LOOKUPS_IN_FLIGHT_PER_ADDRESS} unknown credentials of one address at once; the rest wait, none is refused while the budget lasts`, async () => {
    const { sut, spent } = setUp(10_000);
    const gated = gatedFind('found');
    const all = Promise.all(Array.from({ length: 1000 }, (_, i) => sut.lookup(ip, `valid-${i}`, gated.find)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sut.inFlightFor(ip)).toBe(LOOKUPS_IN_FLIGHT_PER_ADDRESS);
    expect(await gated.settle(all)).toEqual(Array.from({ length: 1000 }, () => 'found'));
    expect(gated.stats()).toEqual({ calls: 1000, most: LOOKUPS_IN_FLIGHT_PER_ADDRESS });
    expect(spent.get(ip)).toBeUndefined();
    expect(sut.inFlightFor(ip)).toBe(0);
  });

  it('a failing lookup gives its place back and spends nothing', async () => {
    const { sut, spent } = setUp(1);
    await expect(sut.lookup(ip, 'x', () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
    expect(sut.inFlightFor(ip)).toBe(0);
    expect(spent.get(ip)).toBeUndefined();
    await expect(sut.lookup(ip, 'y', miss)).resolves.toBeNull();
  });
});
