import { declareJob, MAINTENANCE_QUEUE } from '@app/core';

/** The embed sessions' jobs; their names are in Redis: never change one. */
export const EmbedSessionJob = {
  // Expiry happens by the clock alone; this notices it for `embed_session.ended` webhooks.
  EndExpired: declareJob()('embed-sessions.end-expired', MAINTENANCE_QUEUE, { everyMs: 30_000 }),
  PurgeEnded: declareJob()('embed-sessions.purge-ended', MAINTENANCE_QUEUE, { everyMs: 60 * 60_000 }),
} as const;

export const EMBED_SESSION_JOBS = Object.values(EmbedSessionJob);
