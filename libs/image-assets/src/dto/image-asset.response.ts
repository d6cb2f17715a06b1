import { ApiProperty } from '@nestjs/swagger';
import type { SceneSourceRule } from '../image-rules';

/** One scene-source rule an image breaks. */
export class UnusableReason {
  @ApiProperty({ enum: ['source_image_too_small', 'source_image_aspect_ratio'] })
  code: SceneSourceRule;

  @ApiProperty({ example: 'The image is 1024×1024; a scene source must be at least 1280×720.' })
  message: string;
}

export class ImageAssetResponse {
  @ApiProperty({ example: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE', pattern: '^img_[0-9A-HJKMNP-TV-Z]{26}$' })
  imageAssetId: string;

  @ApiProperty({ enum: ['png', 'jpeg', 'webp'], description: 'Detected from the bytes, never from the name or declared type.' })
  format: 'png' | 'jpeg' | 'webp';

  @ApiProperty({ example: 1920, description: 'Width as displayed, after the EXIF orientation.' })
  width: number;

  @ApiProperty({ example: 1080, description: 'Height as displayed, after the EXIF orientation.' })
  height: number;

  @ApiProperty({ example: 123456, description: 'Size of the uploaded file in bytes.' })
  sizeBytes: number;

  @ApiProperty({
    example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    description: 'Lowercase hex SHA-256 of the uploaded bytes.',
  })
  sha256: string;

  @ApiProperty({ enum: ['unattached', 'attached'] })
  status: 'unattached' | 'attached';

  @ApiProperty({ description: 'At least 1280×720 and within 1% of 16:9: `unusableReasons` is empty.' })
  usableAsSceneSource: boolean;

  @ApiProperty({
    type: UnusableReason,
    isArray: true,
    description:
      'Why the image cannot be a scene source: every rule it breaks, each with the code a scene creation naming it would answer ' +
      "(the first one as the problem's `code`, all of them in its `errors`). Empty when `usableAsSceneSource` is true.",
  })
  unusableReasons: UnusableReason[];

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: '24 hours after upload; null once attached to a scene.',
  })
  expiresAt: string | null;
}

/** What `POST /v1/image-assets/{id}:expire` answers (test mode): the asset's expiry, now. */
export class ExpiredImageAssetResponse {
  @ApiProperty({ example: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  imageAssetId: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}
