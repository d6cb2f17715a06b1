import { describeScene, generatingLabel, type SceneDisplayState } from './scene-status.view';

describe(generatingLabel.name, () => {
  it.each([
    ['queued', 0, 'Waiting to start…'],
    ['generating', 0.05, 'Generating… 5%'],
    ['generating', 0.456, 'Generating… 46%'],
    ['downloading', 0.85, 'Fetching the files… 85%'],
    ['storing', 0.95, 'Saving… 95%'],
    [null, null, 'Generating…'],
  ] as const)('%s at %p → %s', (stage, progress, label) => {
    expect(generatingLabel(stage, progress)).toBe(label);
  });
});

describe(describeScene.name, () => {
  const base: SceneDisplayState = {
    status: 'generating',
    version: null,
    loadedVersion: null,
    loadingVersion: null,
    loadError: null,
    error: null,
    progress: 0.45,
    stage: 'generating',
  };

  it('shows the stage and progress of a generating scene', () => {
    expect(describeScene(base)).toMatchObject({ label: 'Generating… 45%', tone: 'busy' });
  });

  it("shows a failed scene's safe message", () => {
    expect(describeScene({ ...base, status: 'failed', error: { code: 'cancelled', message: 'The operation was cancelled.' } })).toEqual({
      label: 'Generation failed',
      detail: 'The operation was cancelled.',
      tone: 'bad',
    });
  });
});
