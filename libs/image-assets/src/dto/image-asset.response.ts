import { ApiProperty } from '@nestjs/swagger';

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

  @ApiProperty({ description: 'At least 1280×720 and within 1% of 16:9.' })
  usableAsSceneSource: boolean;

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
