import { checkHandlers, outageDelayMs, JobHandlerRegistryError } from './job-worker.host';

describe(checkHandlers.name, () => {
  it('passes when each declared job has exactly one handler', () => {
    expect(() => checkHandlers(['a', 'b'], ['b', 'a'])).not.toThrow();
  });

  it('refuses a job without a handler', () => {
    expect(() => checkHandlers(['a', 'b'], ['a'])).toThrow(new JobHandlerRegistryError('Refusing to start: job "b" has no handler'));
  });

  it('refuses a job with two handlers', () => {
    expect(() => checkHandlers(['a'], ['a', 'a'])).toThrow(/job "a" has more than one handler/);
  });

  it('refuses a handler for a job nobody declared', () => {
    expect(() => checkHandlers(['a'], ['a', 'z'])).toThrow(/undeclared job "z"/);
  });
});

describe('outageDelayMs', () => {
  it('waits 1 s, then doubles, and never more than 15 s', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map(outageDelayMs)).toEqual([1000, 2000, 4000, 8000, 15_000, 15_000, 15_000]);
  });
});
