import { DomainError } from '@app/core';
import { ImageAssetErrors, sceneSourceReasons } from './image-assets.errors';
import { sceneSourceRulesBroken } from './image-rules';

describe(sceneSourceRulesBroken.name, () => {
  const sut = sceneSourceRulesBroken;

  it.each([
    [1920, 1080, []],
    [1280, 720, []],
    [1920, 1070, []], // within 1% of 16:9
    [1279, 720, ['source_image_too_small']],
    [1280, 719, ['source_image_too_small']],
    [1920, 1200, ['source_image_aspect_ratio']],
    [1000, 1000, ['source_image_too_small', 'source_image_aspect_ratio']],
    [640, 360, ['source_image_too_small']], // 16:9, only small
  ] as const)('%d×%d breaks %j', (width, height, broken) => {
    expect(sut(width, height)).toEqual(broken);
  });
});

describe('ImageAssetErrors.sourceUnusable', () => {
  it('answers the first rule broken as its code, and every rule in errors on sourceAssetId', () => {
    const error = ImageAssetErrors.sourceUnusable(1000, 1000, ['source_image_too_small', 'source_image_aspect_ratio']);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe('source_image_too_small');
    expect(error.message).toBe('The source image is 1000×1000; at least 1280×720 is required.');
    expect(error.errors).toEqual(
      sceneSourceReasons(1000, 1000, sceneSourceRulesBroken(1000, 1000)).map((r) => ({ field: 'sourceAssetId', ...r })),
    );
    expect(error.errors?.map((e) => e.code)).toEqual(['source_image_too_small', 'source_image_aspect_ratio']);
  });
});
