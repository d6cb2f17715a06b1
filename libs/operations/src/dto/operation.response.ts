import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class OperationErrorResponse {
  @ApiProperty({ example: 'generation_failed', description: 'Stable machine-readable code.' })
  code: string;

  @ApiProperty({ example: 'The scene could not be generated. Try again, perhaps with a different prompt.' })
  message: string;

  @ApiProperty({
    description:
      'Whether submitting the request again (with a new Idempotency-Key) may succeed. Codes: `generation_failed`, `provider_unavailable`, `provider_timeout`, `provider_rejected`, `provider_quota_exceeded`, `scene_deleted`, `cancelled`.',
  })
  retryable: boolean;
}

export class OperationResponse {
  @ApiProperty({ example: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE', pattern: '^op_[0-9A-HJKMNP-TV-Z]{26}$' })
  operationId: string;

  @ApiProperty({
    enum: ['scene.create', 'scene.edit'],
    description: 'What the operation does: creates the scene (version 1) or edits it (a studio edit or revert: the next version).',
  })
  kind: 'scene.create' | 'scene.edit';

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'order-48213',
    description:
      "The externalRef of the operation's scene (null when it has none). A failed creation's scene keeps the one it was created with, which may since name another, active scene.",
  })
  externalRef: string | null;

  @ApiProperty({ enum: ['processing', 'succeeded', 'failed'] })
  status: 'processing' | 'succeeded' | 'failed';

  @ApiPropertyOptional({
    example: 0.42,
    minimum: 0,
    maximum: 1,
    description:
      "Present while processing: how far the operation is, from 0 to 1. It never decreases; with a real generator it follows the provider's own progress.",
  })
  progress?: number;

  @ApiPropertyOptional({
    enum: ['queued', 'generating', 'downloading', 'storing'],
    description:
      'Present while processing: `queued` (waiting for a worker), `generating` (at the generator), `downloading` (fetching its files), `storing`.',
  })
  stage?: 'queued' | 'generating' | 'downloading' | 'storing';

  @ApiPropertyOptional({ example: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', description: 'Present when succeeded.' })
  sceneId?: string;

  @ApiPropertyOptional({ example: 1, description: 'Present when succeeded: the scene version produced (1 for creation, +1 per edit).' })
  version?: number;

  @ApiPropertyOptional({ type: OperationErrorResponse, description: 'Present when failed.' })
  error?: OperationErrorResponse;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present on GET.' })
  updatedAt?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once succeeded or failed.' })
  completedAt?: string;
}

/** What POST /v1/scenes answers: the operation to poll. */
export class OperationAcceptedResponse {
  @ApiProperty({ example: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  operationId: string;

  @ApiProperty({ enum: ['processing'] })
  status: 'processing';

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}
