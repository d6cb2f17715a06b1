import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString, Matches } from 'class-validator';
import { UserText } from '@app/core';

export class CreateSceneDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 4000,
    description: '1 to 4000 Unicode code points.',
    example: 'A misty pine forest at sunset, with a lake',
  })
  @IsDefined({ message: 'prompt is required' })
  @IsString({ message: 'prompt must be a string' })
  @UserText({ min: 1, max: 4000, notBlank: true })
  prompt: string;

  @ApiPropertyOptional({
    example: 'img_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    pattern: '^img_[0-9A-HJKMNP-TV-Z]{26}$',
    description: 'An image asset of the organization, at least 1280×720 and within 1% of 16:9.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^img_[0-9A-HJKMNP-TV-Z]{26}$/, {
    message: 'sourceAssetId must be an image asset id (img_…)',
    context: { code: 'invalid_format' },
  })
  sourceAssetId?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description:
      "The partner's own record id; unique among the organization's active scenes. Never an e-mail address or other personal data.",
    example: 'order-48213',
  })
  @IsOptional()
  @IsString()
  @UserText({ min: 1, max: 200, notBlank: true, notEmailLike: true })
  externalRef?: string;
}

export class FindSceneQuery {
  @ApiProperty({ minLength: 1, maxLength: 200, description: 'Exact externalRef of an active scene.' })
  @IsDefined({ message: 'externalRef is required' })
  @IsString({ message: 'externalRef must be given once' })
  @UserText({ min: 1, max: 200 })
  externalRef: string;
}

export class EditSceneDto {
  @ApiProperty({ minLength: 1, maxLength: 2000, example: 'Make it night and add fog' })
  @IsDefined({ message: 'instruction is required' })
  @IsString()
  @UserText({ min: 1, max: 2000, notBlank: true })
  instruction: string;
}
