import { defineConfigSlice, toInt } from '@app/core';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

const DAY_MS = 86_400_000;

/**
 * The embed sessions' variables (README, "Environment"). Each property name is the variable's, so
 * a validation failure names exactly the variable an operator must fix.
 */
export class EmbedSessionsVariables {
  /**
   * Retention (docs/operations.md, "Data we keep"): days an ended embed session is kept after it
   * ended (revoked or expired), then erased by `embed-sessions.purge-ended`.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  EMBED_SESSION_RETENTION_DAYS: number;
}

/** The embed-sessions lib's slice of the configuration, validated at boot with the rest (core's `loadConfig`). */
export const EMBED_SESSIONS_CONFIG = defineConfigSlice({
  name: 'embed sessions',
  variables: EmbedSessionsVariables,
  defaults: {
    // Ended sessions, 30 days (docs/operations.md, "Data we keep").
    EMBED_SESSION_RETENTION_DAYS: '30',
  },
  build: (v) => ({
    /** How long an ended session is kept once it has ended. */
    retentionMs: v.EMBED_SESSION_RETENTION_DAYS * DAY_MS,
  }),
});
