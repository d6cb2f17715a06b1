import { ApiProperty } from '@nestjs/swagger';

export class LimitsResponse {
  @ApiProperty({ example: 'org_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  organizationId: string;

  @ApiProperty({ example: 10, description: 'Generations and edits running at once; more wait with `stage: queued`.' })
  maxConcurrentGenerations: number;

  @ApiProperty({ type: 'integer', nullable: true, example: 500, description: 'Creations plus edits started per UTC day; null: unlimited.' })
  generationsPerDay: number | null;

  @ApiProperty({
    example: 1000,
    description: 'Creations plus edits accepted and waiting to start; more are refused with `429 max_waiting_generations_exceeded`.',
  })
  maxWaitingGenerations: number;
}

export class UsageCounters {
  @ApiProperty({ example: 42, description: 'Creations and edits started (what the daily quota counts).' })
  generationsStarted: number;

  @ApiProperty({ example: 40, description: 'Operations (creations and edits) that succeeded.' })
  generationsSucceeded: number;

  @ApiProperty({ example: 1, description: 'Operations that failed (the running operations of a deleted scene among them).' })
  generationsFailed: number;

  @ApiProperty({ example: 1, description: 'Operations cancelled by the partner.' })
  generationsCancelled: number;

  @ApiProperty({ example: 12, description: 'Edits started (included in generationsStarted).' })
  editsStarted: number;

  @ApiProperty({ example: 60000, description: 'What the generation provider reported (World Labs credits); 0 for the built-in generator.' })
  providerCostUnits: number;

  @ApiProperty({ example: 52428800, description: 'Bytes newly stored: uploaded images and generated files.' })
  storedBytes: number;
}

export class UsageDay extends UsageCounters {
  @ApiProperty({ format: 'date', example: '2026-11-27' })
  date: string;
}

export class UsageToday {
  @ApiProperty({ example: 42, description: 'Creations and edits started today (UTC).' })
  generationsStarted: number;

  @ApiProperty({ type: 'integer', nullable: true, example: 458, description: 'What is left of the quota of today; null: unlimited.' })
  remaining: number | null;
}

export class UsageInFlight {
  @ApiProperty({ example: 3, description: 'Creations and edits accepted and waiting to start (what maxWaitingGenerations caps).' })
  generationsWaiting: number;

  @ApiProperty({
    example: 10,
    description:
      'Creations and edits holding one of the maxConcurrentGenerations slots now: started or about to, and those cancelled (or their scene deleted) whose work has not ended yet.',
  })
  generationsRunning: number;

  @ApiProperty({
    example: 1,
    description:
      'Of generationsRunning: cancelled (or their scene deleted) while their work goes on at the provider or in a worker; each frees its slot, and its cost is counted, when that work ends.',
  })
  generationsCancelling: number;
}

export class UsageResponse {
  @ApiProperty({ example: 'org_01JD3Z8Q4W6K2M9T5X7B1C0VHE' })
  organizationId: string;

  @ApiProperty({ format: 'date', example: '2026-11-01' })
  from: string;

  @ApiProperty({ format: 'date', example: '2026-11-27' })
  to: string;

  @ApiProperty({ type: LimitsResponse })
  limits: LimitsResponse;

  @ApiProperty({ type: UsageToday })
  today: UsageToday;

  @ApiProperty({ type: UsageInFlight, description: 'Now, not per day: what the organization has waiting and running.' })
  inFlight: UsageInFlight;

  @ApiProperty({ type: [UsageDay], description: 'Every day from `from` to `to`, oldest first; days without activity count zero.' })
  days: UsageDay[];

  @ApiProperty({ type: UsageCounters, description: 'The days summed.' })
  totals: UsageCounters;
}
