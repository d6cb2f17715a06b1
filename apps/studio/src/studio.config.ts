import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * The studio's limits per embed session (contract section 7; docs/embed.md, "The studio's
 * limits"). Only the studio process reads them, so they are declared with its wiring rather than
 * in a lib. Each property name is the variable's, so a validation failure names it.
 */
export class StudioVariables {
  /** Edits (and reverts) one embed session may start per hour. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  STUDIO_EDITS_PER_HOUR: number;

  /** Other studio API writes (camera paths, saved views) one embed session may make per minute. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  STUDIO_WRITES_PER_MINUTE: number;

  /** Event streams one embed session may hold open at once, across studio replicas. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  STUDIO_EVENT_STREAMS_PER_SESSION: number;
}

/** The studio app's slice of the configuration, validated at boot with the rest (core's `loadConfig`). */
export const STUDIO_CONFIG = defineConfigSlice({
  name: 'studio',
  variables: StudioVariables,
  defaults: {
    // The contract's studio limits (section 7).
    STUDIO_EDITS_PER_HOUR: '30',
    STUDIO_WRITES_PER_MINUTE: '120',
    STUDIO_EVENT_STREAMS_PER_SESSION: '5',
  },
  build: (v) => ({
    editsPerHour: v.STUDIO_EDITS_PER_HOUR,
    writesPerMinute: v.STUDIO_WRITES_PER_MINUTE,
    eventStreams: v.STUDIO_EVENT_STREAMS_PER_SESSION,
  }),
});
