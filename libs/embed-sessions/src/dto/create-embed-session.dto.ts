import { UserText } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { exactOrigin } from '@app/organizations';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { EMBED_MODES, EmbedMode } from '../embed-session.entity';

/** Exactly what `new URL(x).origin` prints: scheme, host, port only when not the default. */
function SerializedOrigin(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'serializedOrigin',
      validator: {
        validate: (v: unknown) => typeof v !== 'string' || exactOrigin(v) === v,
        defaultMessage: () =>
          'origin must be an exact origin as a browser serializes it: scheme, host and port only when not the default (no path, query, fragment, trailing slash, credentials or upper case)',
      },
    },
    { context: { code: 'invalid_format' } },
  );
}

export class EmbedThemeDto {
  @ApiPropertyOptional({ type: 'string', nullable: true, minLength: 1, maxLength: 80, example: 'Acme' })
  @IsOptional()
  @IsString()
  @UserText({ min: 1, max: 80, notBlank: true })
  partnerName?: string | null;

  @ApiPropertyOptional({ pattern: '^#[0-9a-fA-F]{6}$', example: '#ff6600', description: 'Default #4f8cff.' })
  @IsOptional()
  @IsString()
  @Matches(/^#[0-9a-fA-F]{6}$/, { message: 'accentColor must be a hex colour #rrggbb', context: { code: 'invalid_format' } })
  accentColor?: string;

  @ApiPropertyOptional({ enum: ['dark', 'light'], description: 'Default dark.' })
  @IsOptional()
  @IsIn(['dark', 'light'], { message: 'colorScheme must be dark or light' })
  colorScheme?: 'dark' | 'light';

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 2000, description: 'Shown in the studio help panel; null for none.' })
  @IsOptional()
  @IsString()
  @UserText({ min: 0, max: 2000 })
  helpText?: string | null;
}

export class CreateEmbedSessionDto {
  @ApiProperty({ example: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', pattern: '^scn_[0-9A-HJKMNP-TV-Z]{26}$' })
  @IsDefined({ message: 'sceneId is required' })
  @IsString()
  @Matches(/^scn_[0-9A-HJKMNP-TV-Z]{26}$/, { message: 'sceneId must be a scene id (scn_…)', context: { code: 'invalid_format' } })
  sceneId: string;

  @ApiProperty({
    example: 'https://app.acme.example',
    description:
      'Exact origin of the parent page, serialized (scheme, host, optional port). Live organizations: an approved HTTPS origin; test organizations also http://localhost:<port>.',
  })
  @IsDefined({ message: 'origin is required' })
  @IsString()
  @MaxLength(2048, { context: { code: 'too_long' } })
  @SerializedOrigin()
  origin: string;

  @ApiProperty({ enum: EMBED_MODES, description: 'Immutable for the life of the session.' })
  @IsDefined({ message: 'mode is required' })
  @IsIn(EMBED_MODES, { message: 'mode must be edit, perform or edit_and_perform' })
  mode: EmbedMode;

  @ApiPropertyOptional({ minimum: 300, maximum: 86400, default: 3600 })
  @IsOptional()
  @IsInt({ message: 'expiresInSeconds must be an integer' })
  @Min(300, { context: { code: 'too_small' } })
  @Max(86400, { context: { code: 'too_large' } })
  expiresInSeconds?: number;

  @ApiPropertyOptional({ type: EmbedThemeDto })
  @IsOptional()
  @IsObject({ message: 'theme must be an object' })
  @ValidateNested()
  @Type(() => EmbedThemeDto)
  theme?: EmbedThemeDto | null;
}

export class ExtendEmbedSessionDto {
  @ApiProperty({ minimum: 300, maximum: 86400, description: 'The new lifetime, counted from now.' })
  @IsDefined({ message: 'expiresInSeconds is required' })
  @IsInt({ message: 'expiresInSeconds must be an integer' })
  @Min(300, { context: { code: 'too_small' } })
  @Max(86400, { context: { code: 'too_large' } })
  expiresInSeconds: number;
}

export class ExtendedEmbedSessionResponse {
  @ApiProperty({ example: 'es_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  embedSessionId: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}
