import { DomainError, ErrorCode } from '@app/core';
import { MAX_PIXELS, MAX_SIDE_PX, MIN_SOURCE_HEIGHT, MIN_SOURCE_WIDTH } from './image-rules';

export const ImageAssetErrors = {
  unsupportedFormat: (detected: string | null) =>
    new DomainError(
      ErrorCode.UnsupportedImageFormat,
      detected
        ? `The file is ${detected.toUpperCase()} data; only PNG, JPEG and WebP images are accepted.`
        : 'The file is not a PNG, JPEG or WebP image.',
    ),
  corrupt: () => new DomainError(ErrorCode.ImageCorrupt, 'The image data is damaged or truncated and cannot be decoded.'),
  dimensionsExceeded: (width: number, height: number) =>
    new DomainError(
      ErrorCode.ImageDimensionsExceeded,
      `The image is ${width}×${height} pixels; at most ${MAX_SIDE_PX} pixels per side and ${MAX_PIXELS.toLocaleString('en-US')} pixels in all are accepted.`,
    ),
  sourceNotFound: () =>
    new DomainError(
      ErrorCode.SourceAssetNotFound,
      'sourceAssetId does not name an image asset of this organization that is still available.',
    ),
  sourceTooSmall: (width: number, height: number) =>
    new DomainError(
      ErrorCode.SourceImageTooSmall,
      `The source image is ${width}×${height}; at least ${MIN_SOURCE_WIDTH}×${MIN_SOURCE_HEIGHT} is required.`,
    ),
  sourceAspectRatio: (width: number, height: number) =>
    new DomainError(ErrorCode.SourceImageAspectRatio, `The source image is ${width}×${height}; it must be within 1% of 16:9.`),
};
