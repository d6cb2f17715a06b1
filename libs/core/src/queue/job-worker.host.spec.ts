import { checkHandlers, JobHandlerRegistryError } from './job-worker.host';

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
