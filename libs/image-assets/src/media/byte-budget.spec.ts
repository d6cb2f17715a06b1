import { ByteBudget } from './byte-budget';

/** Work that runs until `finish` is called, noting when it starts. */
function pending(log: string[], name: string) {
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = () => resolve(name);
    fail = reject;
  });
  return {
    work: () => {
      log.push(`start ${name}`);
      return done;
    },
    finish,
    fail,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(ByteBudget.name, () => {
  it('runs work while its weights fit together, the rest in order as weight is given back', async () => {
    const sut = new ByteBudget(100);
    const log: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => pending(log, n));
    const runs = [sut.run(60, a.work), sut.run(40, b.work), sut.run(100, c.work), sut.run(10, d.work)];
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    a.finish();
    await settle();
    // c is first in line and needs the whole budget: d, behind it, waits too.
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    c.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d']);
    d.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives the weight of failed work back', async () => {
    const sut = new ByteBudget(100);
    const log: string[] = [];
    const [a, b] = ['a', 'b'].map((n) => pending(log, n));
    const first = sut.run(100, a.work);
    const second = sut.run(100, b.work);
    a.fail(new Error('decode failed'));
    await expect(first).rejects.toThrow('decode failed');
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    await expect(second).resolves.toBe('b');
  });
});
