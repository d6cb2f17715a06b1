import { MetricsService } from '@app/core';
import { StudioStreamMetrics } from './studio-stream-metrics';

const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, s));

describe(StudioStreamMetrics.name, () => {
  it('measures a revocation from its commit, an expiry from the expiry, to the session.ended write', async () => {
    const metrics = new MetricsService();
    const sut = new StudioStreamMetrics(metrics);
    sut.ended('revoked', at(10), new Date(at(10).getTime() + 400));
    sut.ended('expired', at(20), at(23));
    // A studio clock behind the revoking process's: no negative lag.
    sut.ended('revoked', at(30), at(29));
    // A session already erased: when it ended is unknown, nothing is observed.
    sut.ended('revoked', null, at(40));
    const { body } = await metrics.render();
    expect(body).toContain('studio_session_end_lag_seconds_bucket{le="0.5",reason="revoked"} 2');
    expect(body).toContain('studio_session_end_lag_seconds_sum{reason="revoked"} 0.4');
    expect(body).toContain('studio_session_end_lag_seconds_count{reason="revoked"} 2');
    expect(body).toContain('studio_session_end_lag_seconds_bucket{le="2",reason="expired"} 0');
    expect(body).toContain('studio_session_end_lag_seconds_bucket{le="3",reason="expired"} 1');
  });

  it('reads the open streams at scrape time and counts events by type', async () => {
    const metrics = new MetricsService();
    const sut = new StudioStreamMetrics(metrics);
    let open = 3;
    sut.countOpenStreams(() => open);
    sut.sent('scene.status');
    sut.sent('scene.status');
    sut.sent('session.ended');
    expect((await metrics.render()).body).toContain('studio_event_streams_open 3');
    open = 0;
    const { body } = await metrics.render();
    expect(body).toContain('studio_event_streams_open 0');
    expect(body).toContain('studio_events_sent_total{type="scene.status"} 2');
    expect(body).toContain('studio_events_sent_total{type="session.ended"} 1');
    // Both reasons are there before any session ended, so their rates read 0 rather than nothing.
    expect(body).toContain('studio_session_end_lag_seconds_count{reason="expired"} 0');
  });
});
