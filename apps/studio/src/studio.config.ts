import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * The studio's limits per embed session (contract section 7; docs/embed.md, "The studio's
 * limits") and its event streams' safety sweep. Only the studio process reads them, so they are
 * declared with its wiring rather than in a lib. Each property name is the variable's, so a
 * validation failure names it.
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

  /**
   * How often a studio process reads every open session again, for news of a change that never
   * reached it (a publisher that died between its commit and its broadcast).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  STUDIO_EVENTS_SWEEP_SECONDS: number;
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
    // The bound on how long a lost broadcast can keep a studio open: slow enough to cost little
    // (one query per 1000 open sessions), fast enough for a revocation (docs/embed.md).
    STUDIO_EVENTS_SWEEP_SECONDS: '30',
  },
  build: (v) => ({
    editsPerHour: v.STUDIO_EDITS_PER_HOUR,
    writesPerMinute: v.STUDIO_WRITES_PER_MINUTE,
    eventStreams: v.STUDIO_EVENT_STREAMS_PER_SESSION,
    eventsSweepSeconds: v.STUDIO_EVENTS_SWEEP_SECONDS,
  }),
});
