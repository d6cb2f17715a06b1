import { SlidingWindowLimiter } from '@app/core';
import IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { pollUntil } from '../support/poll';

/** The rolling-window start log that GENERATION_PROVIDER_RATE uses, against the real Redis, from several clients at once. */
describe(SlidingWindowLimiter.name, () => {
  const clients = Array.from({ length: 4 }, () => new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'));
  afterAll(() => Promise.all(clients.map((c) => c.quit())));
  const limiter = (client: IORedis, limit: number, windowMs: number, name: string) =>
    new SlidingWindowLimiter(client, { logKey: `${name}:log`, pauseKey: `${name}:pause`, limit, windowMs });

  it('grants exactly the limit across clients racing for it, then says how long until the window frees', async () => {
    const name = `ss-window-${randomBytes(4).toString('hex')}`;
    const all = clients.map((c) => limiter(c, 5, 1500, name));
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => all[i % all.length].take(1)));
    expect(answers.reduce((n, a) => n + a.granted, 0)).toBe(5);
    const refused = answers.filter((a) => a.granted === 0);
    expect(refused.every((a) => a.waitMs > 0 && a.waitMs <= 1500)).toBe(true);
    expect(await all[0].available()).toMatchObject({ available: 0 });
    // The window rolls: once the oldest start is older than it, places free again.
    const freed = await pollUntil(
      () => all[1].available(),
      (a) => a.available === 5,
      { timeoutMs: 3000, what: 'the window to free' },
    );
    expect(freed.waitMs).toBe(0);
    expect((await all[2].take(7)).granted).toBe(5);
  });

  it('a pause holds everyone back until it ends, whatever the window allows; a shorter pause never shortens it', async () => {
    const name = `ss-window-${randomBytes(4).toString('hex')}`;
    const [a, b] = clients.map((c) => limiter(c, 100, 60_000, name));
    await a.pause(800);
    await b.pause(100);
    const held = await b.take(1);
    expect(held.granted).toBe(0);
    expect(held.waitMs).toBeGreaterThan(500);
    expect((await a.available()).available).toBe(0);
    await pollUntil(
      () => b.take(1),
      (t) => t.granted === 1,
      { timeoutMs: 3000, what: 'the pause to end' },
    );
  });

  it('without a limit, only a pause holds starts back', async () => {
    const name = `ss-window-${randomBytes(4).toString('hex')}`;
    const unlimited = limiter(clients[0], 0, 1000, name);
    expect(await unlimited.take(50)).toEqual({ granted: 50, waitMs: 0 });
    expect((await unlimited.available()).available).toBe(Number.POSITIVE_INFINITY);
    await unlimited.pause(5000);
    expect((await unlimited.take(1)).granted).toBe(0);
  });
});
