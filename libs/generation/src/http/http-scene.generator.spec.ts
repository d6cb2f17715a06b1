import { GenerationRequest } from '../scene-generator';
import { composeScene } from '../procedural/scene-composer';
import { providerRequest, statusError } from './http-scene.generator';

describe(statusError.name, () => {
  it.each([
    [408, 'provider_timeout', true],
    [429, 'provider_unavailable', true],
    [500, 'provider_unavailable', true],
    [502, 'provider_unavailable', true],
    [503, 'provider_unavailable', true],
    [400, 'provider_rejected', false],
    [401, 'provider_rejected', false],
    [403, 'provider_rejected', false],
    [404, 'provider_rejected', false],
    [422, 'provider_rejected', false],
    [302, 'provider_rejected', false],
    [201, 'generation_failed', false],
    [204, 'generation_failed', false],
  ])('%d → %s (retryable: %s)', (status, code, retryable) => {
    const error = statusError(status);
    expect(error).toMatchObject({ code, retryable });
    expect(error.message).not.toContain(String(status));
  });
});

describe(providerRequest.name, () => {
  const base: GenerationRequest = { sceneId: 'scn_1', version: 1, prompt: 'a lake', source: null, edit: null };

  it('sends nulls for a creation without a source', () => {
    expect(providerRequest(base)).toEqual({
      sceneId: 'scn_1',
      version: 1,
      prompt: 'a lake',
      instruction: null,
      previousSpec: null,
      sourceImage: null,
    });
  });

  it('inlines the source image and carries the edit', () => {
    const previousSpec = composeScene({ prompt: 'a lake', seed: 1, sourcePalette: null, backdrop: null });
    const body = providerRequest({
      ...base,
      version: 3,
      source: { bytes: Buffer.from([1, 2, 3]), format: 'webp', width: 1280, height: 720, sha256: 'f'.repeat(64) },
      edit: { previousSpec, instruction: 'add fog' },
    });
    expect(body).toEqual({
      sceneId: 'scn_1',
      version: 3,
      prompt: 'a lake',
      instruction: 'add fog',
      previousSpec,
      sourceImage: { format: 'webp', width: 1280, height: 720, sha256: 'f'.repeat(64), dataBase64: 'AQID' },
    });
  });
});
