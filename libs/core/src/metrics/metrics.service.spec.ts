import { MetricsService, ScrapeReadTimeout } from './metrics.service';

describe(MetricsService.name, () => {
  describe('oneAtATime', () => {
    it('runs the reads queued at once one after the other, in order, a failed one included', async () => {
      const sut = new MetricsService();
      const events: string[] = [];
      let running = 0;
      const read =
        (name: string, fail = false) =>
        async () => {
          running += 1;
          events.push(`start ${name} (${running} running)`);
          await new Promise((resolve) => setImmediate(resolve));
          running -= 1;
          events.push(`end ${name}`);
          if (fail) throw new Error(name);
          return name;
        };
      const results = await Promise.allSettled([sut.oneAtATime(read('a')), sut.oneAtATime(read('b', true)), sut.oneAtATime(read('c'))]);
      expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['a', 'b', 'c']);
      expect(events).toEqual(['start a (1 running)', 'end a', 'start b (1 running)', 'end b', 'start c (1 running)', 'end c']);
    });

    it('gives up on a read not done within its time, and on those queued behind it, so a hung database cannot stall a scrape', async () => {
      const sut = new MetricsService();
      let released: () => void = () => undefined;
      const hung = sut.oneAtATime(() => new Promise<string>((resolve) => (released = () => resolve('late'))), 50);
      let started = false;
      // Due before the read ahead of it gives up: it never starts.
      const queued = sut.oneAtATime(async () => {
        started = true;
        return 'never';
      }, 30);
      await expect(hung).rejects.toBeInstanceOf(ScrapeReadTimeout);
      await expect(queued).rejects.toBeInstanceOf(ScrapeReadTimeout);
      expect(started).toBe(false);
      // The queue moved on: the next scrape's read runs.
      await expect(sut.oneAtATime(() => Promise.resolve('next'), 50)).resolves.toBe('next');
      released();
    });

    it('lets a gauge collected with it answer a scrape', async () => {
      const sut = new MetricsService();
      sut.gauge('answers', 'h', [], async function () {
        this.set(await sut.oneAtATime(() => Promise.resolve(42)));
      });
      expect((await sut.render()).body).toContain('answers 42');
    });
  });
});
