import { ApiProperty } from '@nestjs/swagger';
import { EMBED_MODES, EmbedMode } from '../embed-session.entity';

export class EmbedThemeResponse {
  @ApiProperty({ type: 'string', nullable: true })
  partnerName: string | null;

  @ApiProperty({ example: '#ff6600' })
  accentColor: string;

  @ApiProperty({ enum: ['dark', 'light'] })
  colorScheme: 'dark' | 'light';

  @ApiProperty({ type: 'string', nullable: true })
  helpText: string | null;
}

export class EmbedSessionResponse {
  @ApiProperty({ example: 'es_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  embedSessionId: string;

  @ApiProperty({
    example: 'http://localhost:3001/embed/es_01JD3Z8Q4W6K2M9T5X7B1C0VHE#kq3…',
    description:
      'A bearer secret: its secret is in the fragment. Returned by this call alone; deliver it only through an authenticated, private, no-store response.',
  })
  url: string;

  @ApiProperty({ example: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  sceneId: string;

  @ApiProperty({ enum: EMBED_MODES })
  mode: EmbedMode;

  @ApiProperty({ example: 'https://app.acme.example' })
  origin: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: EmbedThemeResponse, description: 'The theme with defaults applied.' })
  theme: EmbedThemeResponse;
}
