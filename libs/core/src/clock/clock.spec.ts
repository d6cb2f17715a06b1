import { Clock, ManualClock } from './clock';

describe(ManualClock.name, () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('fires a timer when moved to or past its moment, on a later tick, once', async () => {
    const sut = new ManualClock(1000);
    const fired: string[] = [];
    sut.at(new Date(2000), () => fired.push('a'));
    sut.at(new Date(3000), () => fired.push('b'));
    sut.advance(999);
    await tick();
    expect(fired).toEqual([]);
    sut.advance(1);
    expect(fired).toEqual([]);
    await tick();
    expect(fired).toEqual(['a']);
    sut.set(5000);
    sut.set(6000);
    await tick();
    expect(fired).toEqual(['a', 'b']);
  });

  it('fires a timer set in the past at once, and never one that was cancelled', async () => {
    const sut = new ManualClock(1000);
    const fired: string[] = [];
    sut.at(new Date(500), () => fired.push('past'));
    sut.at(new Date(1500), () => fired.push('cancelled')).cancel();
    sut.advance(1000);
    await tick();
    expect(fired).toEqual(['past']);
  });
});

describe(Clock.name, () => {
  it('fires at the moment by the wall clock, and not once cancelled', async () => {
    const sut = new Clock();
    const fired: string[] = [];
    sut.at(new Date(Date.now() + 30_000), () => fired.push('later')).cancel();
    await new Promise<void>((resolve) => sut.at(new Date(Date.now() + 20), () => (fired.push('soon'), resolve())));
    expect(fired).toEqual(['soon']);
  });
});
