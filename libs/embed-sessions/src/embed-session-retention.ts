import { AppConfig, Clock, inBatches, OnJob } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { EmbedSessionsRepository } from './embed-sessions.repository';
import { EmbedSessionJob } from './embed-sessions.jobs';
import { EMBED_SESSIONS_CONFIG } from './embed-sessions.config';

/**
 * Retention (docs/operations.md, "Data we keep"): a session is erased EMBED_SESSION_RETENTION_DAYS (30) after it
 * ended — revoked (by its partner or its scene's deletion) or expired. An expired session waits
 * for its `embed_session.ended` to be written first (`embed-sessions.end-expired`). Once erased, its
 * URL answers as an unknown session, which the studio cannot tell from an ended one anyway.
 */
@Injectable()
export class EmbedSessionRetention {
  private readonly logger = new Logger(EmbedSessionRetention.name);

  constructor(
    private readonly sessions: EmbedSessionsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @OnJob(EmbedSessionJob.PurgeEnded)
  async purgeEnded(): Promise<{ sessions: number }> {
    const before = new Date(this.clock.now().getTime() - this.config.slice(EMBED_SESSIONS_CONFIG).retentionMs);
    const deleted = await inBatches((limit) => this.sessions.deleteEndedBefore(before, limit));
    if (deleted > 0) this.logger.log(`erased ${deleted} embed session(s) that ended before ${before.toISOString()}`);
    return { sessions: deleted };
  }
}
