import { MetricsService } from '@app/core';
import { EndedReason, StudioEventType } from '@app/embed-sessions';
import { Injectable } from '@nestjs/common';

/** Seconds; the studio promises an end reaches open pages within 2 s (docs/operations.md, "The studio origin"). */
const END_LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60];

/**
 * The studio's event streams on its /metrics, kept apart from how the hub finds out what changed
 * (polled or pushed), so that either design reports the same figures:
 *
 * - `studio_event_streams_open`: streams this process holds open (`countOpenStreams`, once).
 * - `studio_events_sent_total{type}`: events written to pages (`sent`, at each write).
 * - `studio_session_end_lag_seconds{reason}`: from the moment a session ended to the write of its
 *   `session.ended` on a stream (`ended`, at that write): for `revoked`, its revoking commit
 *   (`revoked_at`, set in the transaction that revoked it, by its partner, an origin's removal or
 *   its scene's deletion); for `expired`, its expiry. One observation per stream told. The clocks
 *   of the revoking process and the studio differ by their skew; a negative lag counts as 0.
 */
@Injectable()
export class StudioStreamMetrics {
  private readonly sentTotal;
  private readonly endLag;

  constructor(private readonly metrics: MetricsService) {
    this.sentTotal = metrics.counter('studio_events_sent_total', 'Events written to open studio pages, by type', ['type'] as const);
    this.endLag = metrics.histogram(
      'studio_session_end_lag_seconds',
      'From a session ending (its revoking commit, or its expiry) to the session.ended written on an open stream',
      ['reason'] as const,
      END_LAG_BUCKETS,
    );
    for (const reason of ['revoked', 'expired'] as const) this.endLag.zero({ reason });
  }

  /** Registers the open-stream gauge, read at scrape time from `open`; call once. */
  countOpenStreams(open: () => number): void {
    this.metrics.gauge('studio_event_streams_open', 'Event streams this studio process holds open', [] as const, function () {
      this.set(open());
    });
  }

  sent(type: StudioEventType): void {
    this.sentTotal.inc({ type });
  }

  /**
   * A `session.ended` was written at `writtenAt`, for a session that ended at `endedAt`: its
   * `revoked_at` (a revocation, the scene's deletion included) or its `expires_at`. Null when the
   * writer does not know it (a session already erased): nothing is observed.
   */
  ended(reason: EndedReason, endedAt: Date | null, writtenAt: Date): void {
    if (!endedAt) return;
    this.endLag.observe({ reason }, Math.max(0, (writtenAt.getTime() - endedAt.getTime()) / 1000));
  }
}
