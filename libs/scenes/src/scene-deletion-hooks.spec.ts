import { SceneDeletionHooks } from './scene-deletion-hooks';

describe(SceneDeletionHooks.name, () => {
  const scene = { id: 'scn_1', organizationId: 'org_1' };
  const at = new Date('2026-11-30T10:00:00Z');

  it('hands a committed deletion to the scheduler, which the follow-ups never run in', async () => {
    const hooks = new SceneDeletionHooks();
    const followUp = jest.fn(() => Promise.resolve());
    const scheduler = jest.fn(() => Promise.resolve());
    hooks.registerFollowUp('sessions', followUp, () => Promise.resolve(true));
    hooks.scheduleFollowUpsWith(scheduler);
    await hooks.scheduleFollowUps(scene);
    expect(scheduler).toHaveBeenCalledWith(scene);
    expect(followUp).not.toHaveBeenCalled();
  });

  it('rejects when the scheduler fails or there is none, so the caller can say the purge will run them', async () => {
    const hooks = new SceneDeletionHooks();
    hooks.registerFollowUp(
      'sessions',
      () => Promise.resolve(),
      () => Promise.resolve(true),
    );
    await expect(hooks.scheduleFollowUps(scene)).rejects.toThrow('no scheduler');
    hooks.scheduleFollowUpsWith(() => Promise.reject(new Error('Redis away')));
    await expect(hooks.scheduleFollowUps(scene)).rejects.toThrow('Redis away');
  });

  it('says follow-ups are pending when any of them has work, in the deleting transaction', async () => {
    const hooks = new SceneDeletionHooks();
    const tx = {} as Parameters<SceneDeletionHooks['followUpsPending']>[0];
    expect(await hooks.followUpsPending(tx, scene, at)).toBe(false);
    const idle = jest.fn(() => Promise.resolve(false));
    hooks.registerFollowUp('paths', () => Promise.resolve(), idle);
    expect(await hooks.followUpsPending(tx, scene, at)).toBe(false);
    expect(idle).toHaveBeenCalledWith(tx, scene, at);
    hooks.registerFollowUp(
      'sessions',
      () => Promise.resolve(),
      () => Promise.resolve(true),
    );
    expect(await hooks.followUpsPending(tx, scene, at)).toBe(true);
  });

  it('takes one scheduler only', () => {
    const hooks = new SceneDeletionHooks();
    const scheduler = jest.fn(() => Promise.resolve());
    hooks.scheduleFollowUpsWith(scheduler);
    expect(() => hooks.scheduleFollowUpsWith(scheduler)).toThrow('scheduled twice');
  });
});
