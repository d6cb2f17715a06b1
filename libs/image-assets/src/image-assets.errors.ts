import { DomainError, ErrorDeclarations } from '@app/core';
import { MAX_PIXELS, MAX_SIDE_PX, MIN_SOURCE_HEIGHT, MIN_SOURCE_WIDTH, SceneSourceRule } from './image-rules';

/** The image assets' own codes (docs/api.md, "Errors"). */
export enum ImageAssetErrorCode {
  UnsupportedImageFormat = 'unsupported_image_format',
  ImageCorrupt = 'image_corrupt',
  ImageDimensionsExceeded = 'image_dimensions_exceeded',
  SourceAssetNotFound = 'source_asset_not_found',
  SourceImageTooSmall = 'source_image_too_small',
  SourceImageAspectRatio = 'source_image_aspect_ratio',
}

/** What each answers over HTTP; the HTTP apps assemble it (CoreModule.forRoot({ errors })). */
export const IMAGE_ASSET_ERRORS: ErrorDeclarations<ImageAssetErrorCode> = {
  [ImageAssetErrorCode.UnsupportedImageFormat]: {
    status: 422,
    title: 'Unsupported image format',
    action: 'Upload a PNG, JPEG or WebP image; the format is read from the bytes, not the file name or declared type.',
  },
  [ImageAssetErrorCode.ImageCorrupt]: {
    status: 422,
    title: 'Image data is corrupt',
    action: 'Upload the file again from its source: it is damaged or truncated, or it is not the image its signature claims.',
  },
  [ImageAssetErrorCode.ImageDimensionsExceeded]: {
    status: 422,
    title: 'Image dimensions exceeded',
    action: `Scale the image down to at most ${MAX_SIDE_PX} px per side and ${MAX_PIXELS.toLocaleString('en-US')} pixels in all, then upload it.`,
  },
  [ImageAssetErrorCode.SourceAssetNotFound]: {
    status: 422,
    title: 'Source asset not found',
    action: 'Upload the image again and use the new `imageAssetId`: an unattached upload expires 24 hours after it was made.',
  },
  [ImageAssetErrorCode.SourceImageTooSmall]: {
    status: 422,
    title: 'Source image too small',
    action: `Use an image of at least ${MIN_SOURCE_WIDTH}×${MIN_SOURCE_HEIGHT} pixels; \`unusableReasons\` of an upload says in advance whether it can be a scene source.`,
  },
  [ImageAssetErrorCode.SourceImageAspectRatio]: {
    status: 422,
    title: 'Source image aspect ratio not 16:9',
    action:
      'Crop or pad the image to 16:9 (within 1 %) and upload it again; `unusableReasons` of an upload says in advance whether it can be a scene source.',
  },
};

export const ImageAssetErrors = {
  unsupportedFormat: (detected: string | null) =>
    new DomainError(
      ImageAssetErrorCode.UnsupportedImageFormat,
      detected
        ? `The file is ${detected.toUpperCase()} data; only PNG, JPEG and WebP images are accepted.`
        : 'The file is not a PNG, JPEG or WebP image.',
    ),
  corrupt: () => new DomainError(ImageAssetErrorCode.ImageCorrupt, 'The image data is damaged or truncated and cannot be decoded.'),
  dimensionsExceeded: (width: number, height: number) =>
    new DomainError(
      ImageAssetErrorCode.ImageDimensionsExceeded,
      `The image is ${width}×${height} pixels; at most ${MAX_SIDE_PX} pixels per side and ${MAX_PIXELS.toLocaleString('en-US')} pixels in all are accepted.`,
    ),
  tooLargeToTurn: (width: number, height: number, maxPixels: number) =>
    new DomainError(
      ImageAssetErrorCode.ImageDimensionsExceeded,
      `The image is ${width}×${height} pixels and has to be turned upright (its EXIF orientation); an image of its kind ` +
        `can be turned at up to ${maxPixels.toLocaleString('en-US')} pixels.`,
    ),
  sourceNotFound: () =>
    new DomainError(
      ImageAssetErrorCode.SourceAssetNotFound,
      'sourceAssetId does not name an image asset of this organization that is still available.',
    ),
  /**
   * A scene creation naming an image that breaks scene-source rules: the top-level code is the
   * first rule broken (size before aspect ratio, as before `errors` listed them), `errors` lists
   * every one, each on `sourceAssetId`, so a partner fixes the image once.
   */
  sourceUnusable: (width: number, height: number, broken: readonly [SceneSourceRule, ...SceneSourceRule[]]) =>
    new DomainError(broken[0], SOURCE_DETAILS[broken[0]](width, height), {
      errors: sceneSourceReasons(width, height, broken).map((r) => ({ field: 'sourceAssetId', ...r })),
    }),
};

const SOURCE_DETAILS: Record<SceneSourceRule, (width: number, height: number) => string> = {
  source_image_too_small: (width, height) =>
    `The source image is ${width}×${height}; at least ${MIN_SOURCE_WIDTH}×${MIN_SOURCE_HEIGHT} is required.`,
  source_image_aspect_ratio: (width, height) => `The source image is ${width}×${height}; it must be within 1% of 16:9.`,
};

const REASON_MESSAGES: Record<SceneSourceRule, (width: number, height: number) => string> = {
  source_image_too_small: (width, height) =>
    `The image is ${width}×${height}; a scene source must be at least ${MIN_SOURCE_WIDTH}×${MIN_SOURCE_HEIGHT}.`,
  source_image_aspect_ratio: (width, height) => `The image is ${width}×${height}; a scene source must be within 1% of 16:9.`,
};

/** One scene-source rule an image breaks, as an upload's `unusableReasons` and a refusal's `errors` tell it. */
export interface SceneSourceReason {
  code: SceneSourceRule;
  message: string;
}

export function sceneSourceReasons(width: number, height: number, broken: readonly SceneSourceRule[]): SceneSourceReason[] {
  return broken.map((code) => ({ code, message: REASON_MESSAGES[code](width, height) }));
}
