import { RateLimitExceeded, Reservation, TokenAllowances } from './rate-limiter';

/** The shared fixed-window counter, as Redis keeps it, with a clock the test moves. */
class FakeWindow {
  now = 1_000_000;
  calls = 0;
  private count = 0;
  private endsAt = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  readonly reserve = async (_key: string, points: number): Promise<Reservation> => {
    this.calls++;
    if (this.now >= this.endsAt) {
      this.count = 0;
      this.endsAt = this.now + this.windowMs;
    }
    const before = this.count;
    this.count += points;
    const granted = Math.max(0, Math.min(points, this.limit - before));
    return { granted, remaining: Math.max(0, this.limit - this.count), msBeforeReset: this.endsAt - this.now };
  };
}

async function admitted(sut: TokenAllowances, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    try {
      await sut.consume('org');
      ok++;
    } catch (e) {
      if (!(e instanceof RateLimitExceeded)) throw e;
    }
  }
  return ok;
}

describe(TokenAllowances.name, () => {
  it('counts a small budget exactly, one reservation per request', async () => {
    const window = new FakeWindow(3, 60_000);
    const sut = new TokenAllowances(3, 60, window.reserve, () => window.now);
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await sut.consume('org')).remaining);
    expect(remaining).toEqual([2, 1, 0]);
    await expect(sut.consume('org')).rejects.toBeInstanceOf(RateLimitExceeded);
    expect(window.calls).toBe(3);
  });

  it('reserves a busy budget in doubling batches up to 1 % of the limit', async () => {
    const window = new FakeWindow(1000, 60_000);
    const sut = new TokenAllowances(1000, 60, window.reserve, () => window.now);
    expect(await admitted(sut, 100)).toBe(100);
    // 1 + 2 + 4 + 8 + 10 × 8.5: 13 round trips for 100 requests instead of 100.
    expect(window.calls).toBe(13);
  });

  it('never admits more than the limit across processes, and loses at most a batch per process', async () => {
    const window = new FakeWindow(1000, 60_000);
    const processes = [0, 1, 2].map(() => new TokenAllowances(1000, 60, window.reserve, () => window.now));
    let total = 0;
    for (let round = 0; round < 400; round++) for (const p of processes) total += await admitted(p, 1);
    expect(total).toBeLessThanOrEqual(1000);
    expect(total).toBeGreaterThanOrEqual(1000 - 3 * 10);
  });

  it('refuses a spent window without asking the shared counter again until it resets', async () => {
    const window = new FakeWindow(2, 10_000);
    const sut = new TokenAllowances(2, 10, window.reserve, () => window.now);
    expect(await admitted(sut, 2)).toBe(2);
    const calls = window.calls;
    const refused = await sut.consume('org').catch((e: RateLimitExceeded) => e);
    expect(refused).toBeInstanceOf(RateLimitExceeded);
    expect((refused as RateLimitExceeded).state).toMatchObject({ remaining: 0, resetSeconds: 10 });
    expect(await admitted(sut, 5)).toBe(0);
    expect(window.calls).toBe(calls);

    window.now += 10_000;
    expect((await sut.consume('org')).remaining).toBe(1);
  });

  it('drops tokens left from the previous window and starts the next with a batch of one', async () => {
    const window = new FakeWindow(1000, 10_000);
    const sut = new TokenAllowances(1000, 10, window.reserve, () => window.now);
    await admitted(sut, 20);
    window.now += 10_000;
    const calls = window.calls;
    const state = await sut.consume('org');
    expect(window.calls).toBe(calls + 1);
    expect(state).toMatchObject({ remaining: 999, resetSeconds: 10 });
  });

  it('lets concurrent requests share one reservation', async () => {
    const window = new FakeWindow(1000, 60_000);
    const sut = new TokenAllowances(1000, 60, window.reserve, () => window.now);
    await admitted(sut, 7); // batches of 1, 2, 4: the next one holds 8 tokens
    const calls = window.calls;
    const states = await Promise.all(Array.from({ length: 8 }, () => sut.consume('org')));
    expect(window.calls).toBe(calls + 1);
    expect(new Set(states.map((s) => s.remaining)).size).toBe(8);
  });

  it('keeps organizations apart', async () => {
    const window = new FakeWindow(1, 60_000);
    const other = new FakeWindow(1, 60_000);
    const sut = new TokenAllowances(1, 60, (key, points) => (key === 'a' ? window : other).reserve(key, points));
    await sut.consume('a');
    await expect(sut.consume('a')).rejects.toBeInstanceOf(RateLimitExceeded);
    await expect(sut.consume('b')).resolves.toMatchObject({ remaining: 0 });
  });

  it('peeks at what this process knows of a window without spending or asking the shared counter', async () => {
    const window = new FakeWindow(300, 60_000);
    const sut = new TokenAllowances(300, 60, window.reserve, () => window.now);
    // A window never seen: the whole limit.
    expect(sut.peek('org')).toEqual({ limit: 300, remaining: 300, resetSeconds: 60, windowSeconds: 60 });
    expect(window.calls).toBe(0);
    await admitted(sut, 10);
    const calls = window.calls;
    expect(sut.peek('org').remaining).toBe(290);
    expect(sut.peek('org').remaining).toBe(290);
    expect(window.calls).toBe(calls);
    // Spent: 0, and how long until the window ends.
    await admitted(sut, 300);
    expect(sut.peek('org')).toMatchObject({ remaining: 0, resetSeconds: 60 });
    window.now += 60_000;
    expect(sut.peek('org').remaining).toBe(300);
  });
});
