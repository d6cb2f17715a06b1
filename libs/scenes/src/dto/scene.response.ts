import { ApiProperty } from '@nestjs/swagger';

export class SceneResponse {
  @ApiProperty({ example: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE', pattern: '^scn_[0-9A-HJKMNP-TV-Z]{26}$' })
  sceneId: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'order-48213' })
  externalRef: string | null;

  @ApiProperty({ enum: ['generating', 'ready'], description: '`generating` until version 1 exists; edits keep the scene `ready`.' })
  status: 'generating' | 'ready';

  @ApiProperty({ example: 1, description: 'The current version; while generating, the version being generated (1).' })
  version: number;

  @ApiProperty({ example: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE', description: 'The operation that created the scene.' })
  operationId: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}
