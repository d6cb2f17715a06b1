import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

const DAY_MS = 86_400_000;

/**
 * The operations lib's variables (README, "Environment"). Each property name is the variable's, so a
 * validation failure names exactly the variable an operator must fix.
 */
export class OperationsVariables {
  /** How often a worker looks for accepted operations that have no job (lost enqueue, Redis restart). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  RECONCILE_INTERVAL_MS: number;

  /** How long an operation may sit without progress before the reconciler checks its job. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  RECONCILE_GRACE_MS: number;

  /**
   * Retention (docs/operations.md, "Data we keep"): days a finished operation of a deleted scene
   * is kept after it ended, then erased by `scenes.purge-old-operations`.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  OPERATION_RETENTION_DAYS: number;
}

/** The operations lib's slice of the configuration, validated at boot with the rest (core's `loadConfig`). */
export const OPERATIONS_CONFIG = defineConfigSlice({
  name: 'operations',
  variables: OperationsVariables,
  defaults: {
    RECONCILE_INTERVAL_MS: '5000',
    RECONCILE_GRACE_MS: '10000',
    // Finished operations of deleted scenes, 30 days (docs/operations.md, "Data we keep").
    OPERATION_RETENTION_DAYS: '30',
  },
  build: (v) => ({
    reconcile: { intervalMs: v.RECONCILE_INTERVAL_MS, graceMs: v.RECONCILE_GRACE_MS },
    /** How long a finished operation of a deleted scene is kept once it has ended. */
    operationRetentionMs: v.OPERATION_RETENTION_DAYS * DAY_MS,
  }),
});
