import { loadConfig } from '@app/core';
import { OPERATIONS_CONFIG } from './operations.config';

describe('OPERATIONS_CONFIG', () => {
  const sut = (overrides: Record<string, string | undefined>) => loadConfig(overrides, {});
  const day = 86_400_000;

  it('reads the reconciler settings and the operations kept 30 days by default', () => {
    expect(sut({}).slice(OPERATIONS_CONFIG)).toEqual({ reconcile: { intervalMs: 5000, graceMs: 10_000 }, operationRetentionMs: 30 * day });
    expect(sut({ OPERATION_RETENTION_DAYS: '90', RECONCILE_GRACE_MS: '500' }).slice(OPERATIONS_CONFIG)).toMatchObject({
      reconcile: { graceMs: 500 },
      operationRetentionMs: 90 * day,
    });
  });

  it.each([
    ['OPERATION_RETENTION_DAYS', ['0', '3651', '1.5', '30d']],
    ['RECONCILE_INTERVAL_MS', ['99', '600001']],
    ['RECONCILE_GRACE_MS', ['99', '3600001']],
  ])('stops the process naming %s', (name, values) => {
    for (const bad of values) expect(() => sut({ [name]: bad })).toThrow(new RegExp(`${name} must`));
  });
});
