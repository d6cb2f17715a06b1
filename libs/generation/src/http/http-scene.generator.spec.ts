import { GenerationRequest } from '../scene-generator';
import { composeScene } from '@scene-studio/world-engine';
import { progressOf, providerRequest } from './http-scene.generator';

describe(providerRequest.name, () => {
  const base: GenerationRequest = { sceneId: 'scn_1', version: 1, prompt: 'a lake', source: null, edit: null, idempotencyKey: 'op_1' };

  it('sends nulls for a creation without a source, and never the idempotency key in the body', () => {
    expect(providerRequest(base)).toEqual({
      sceneId: 'scn_1',
      version: 1,
      prompt: 'a lake',
      instruction: null,
      previousView: null,
      sourceImage: null,
    });
  });

  it('inlines the source image and carries the edit', () => {
    const previous = composeScene({ prompt: 'a lake', seed: 1, sourcePalette: null, backdrop: null });
    const body = providerRequest({
      ...base,
      version: 3,
      source: { bytes: Buffer.from([1, 2, 3]), format: 'webp', width: 1280, height: 720, sha256: 'f'.repeat(64) },
      edit: { previous, instruction: 'add fog' },
    });
    expect(body).toEqual({
      sceneId: 'scn_1',
      version: 3,
      prompt: 'a lake',
      instruction: 'add fog',
      previousView: previous,
      sourceImage: { format: 'webp', width: 1280, height: 720, sha256: 'f'.repeat(64), dataBase64: 'AQID' },
    });
  });
});

describe(progressOf.name, () => {
  it.each([
    [0.25, 0.25],
    [0, 0],
    [1, 1],
    [-1, 0],
    [3, 1],
    [null, null],
    ['0.5', null],
    [Number.NaN, null],
  ])('%p → %p', (input, expected) => {
    expect(progressOf(input)).toBe(expected);
  });
});
