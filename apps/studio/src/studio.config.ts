import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * The studio's limits per embed session (docs/embed.md, "The studio's
 * limits"), its event streams' safety sweep and what one studio process does at once. Only the
 * studio process reads them, so they are declared with its wiring rather than in a lib. Each
 * property name is the variable's, so a validation failure names it.
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

  /**
   * Camera-path writes (bodies up to 8 MiB) one embed session may have in flight at once in one
   * studio process: read, parsed, checked and stored. More are refused before their body is read.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  STUDIO_CONCURRENT_WRITES_PER_SESSION: number;

  /** The same for the whole studio process, all sessions together: what bounds its memory. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  STUDIO_CONCURRENT_WRITES: number;

  /** File downloads (a version's artifacts, the source image) one embed session may have in flight at once in one studio process. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  STUDIO_CONCURRENT_READS_PER_SESSION: number;

  /** The same for the whole studio process: each holds a database chunk or an S3 stream and a socket. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(10_000)
  STUDIO_CONCURRENT_READS: number;
}

/** The studio app's slice of the configuration, validated at boot with the rest (core's `loadConfig`). */
export const STUDIO_CONFIG = defineConfigSlice({
  name: 'studio',
  variables: StudioVariables,
  defaults: {
    // The studio's limits as docs/embed.md states them.
    STUDIO_EDITS_PER_HOUR: '30',
    STUDIO_WRITES_PER_MINUTE: '120',
    STUDIO_EVENT_STREAMS_PER_SESSION: '5',
    // A page saves one take at a time (it waits for the answer before the next).
    STUDIO_CONCURRENT_WRITES_PER_SESSION: '1',
    // Measured: a write of 8 MiB costs up to about 60 MiB of resident memory while it is checked
    // and stored (docs/performance.md); three keep a studio, whose base is about 250 MiB, within
    // its 512 Mi (deploy/kubernetes) with room for its downloads.
    STUDIO_CONCURRENT_WRITES: '3',
    // A page loads a version's mesh, collider, splat and its preview at once; the version
    // inspector may load a second version meanwhile.
    STUDIO_CONCURRENT_READS_PER_SESSION: '8',
    // Under the S3 client's 50 sockets, so a download never waits inside the SDK for one.
    STUDIO_CONCURRENT_READS: '32',
    // The bound on how long a lost broadcast can keep a studio open: slow enough to cost little
    // (one query per 1000 open sessions), fast enough for a revocation (docs/embed.md).
    STUDIO_EVENTS_SWEEP_SECONDS: '30',
  },
  check: (v) => [
    ...(v.STUDIO_CONCURRENT_WRITES_PER_SESSION > v.STUDIO_CONCURRENT_WRITES
      ? ['STUDIO_CONCURRENT_WRITES_PER_SESSION must not exceed STUDIO_CONCURRENT_WRITES']
      : []),
    ...(v.STUDIO_CONCURRENT_READS_PER_SESSION > v.STUDIO_CONCURRENT_READS
      ? ['STUDIO_CONCURRENT_READS_PER_SESSION must not exceed STUDIO_CONCURRENT_READS']
      : []),
  ],
  build: (v) => ({
    editsPerHour: v.STUDIO_EDITS_PER_HOUR,
    writesPerMinute: v.STUDIO_WRITES_PER_MINUTE,
    eventStreams: v.STUDIO_EVENT_STREAMS_PER_SESSION,
    writes: { perSession: v.STUDIO_CONCURRENT_WRITES_PER_SESSION, perProcess: v.STUDIO_CONCURRENT_WRITES },
    reads: { perSession: v.STUDIO_CONCURRENT_READS_PER_SESSION, perProcess: v.STUDIO_CONCURRENT_READS },
    eventsSweepSeconds: v.STUDIO_EVENTS_SWEEP_SECONDS,
  }),
});
