import { ManualClock } from '@app/core';
import { DEFAULT_LIMITS, LimitsService, MAX_WAITING_GENERATIONS } from './limits.service';
import { TenancyRepository } from './tenancy.repository';

describe(LimitsService.name, () => {
  const saved: unknown[] = [];
  const repository = {
    limitsOf: async () => [],
    saveLimits: async (row: unknown) => void saved.push(row),
  } as unknown as TenancyRepository;
  const sut = new LimitsService(repository, new ManualClock(0));

  it('has a waiting cap by default, never unlimited', async () => {
    expect(await sut.of('org_a')).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS.maxWaitingGenerations).toBe(1000);
  });

  it('takes a waiting cap from 1 to 1 000 000 and refuses anything else, saving nothing', async () => {
    for (const good of [1, MAX_WAITING_GENERATIONS]) {
      await expect(sut.change('org_a', { maxWaitingGenerations: good })).resolves.toMatchObject({ maxWaitingGenerations: good });
    }
    const before = saved.length;
    for (const bad of [0, -1, 1.5, MAX_WAITING_GENERATIONS + 1, Number.NaN]) {
      await expect(sut.change('org_a', { maxWaitingGenerations: bad })).rejects.toMatchObject({
        code: 'validation_failed',
        errors: [expect.objectContaining({ field: 'maxWaitingGenerations' })],
      });
    }
    expect(saved).toHaveLength(before);
  });
});
