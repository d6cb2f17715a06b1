import { ManualClock, MetricsService } from '@app/core';
import { GenerationBacklogs, LimitsService, OrganizationLimits } from '@app/tenancy';
import { BacklogGroup, GenerationBacklogRepository } from './generation-backlog.repository';
import { backlogSnapshot, GenerationBacklogMetrics, waitingGroups } from './generation-backlog-metrics';

const NOW = new Date(Date.UTC(2026, 11, 1, 12, 0, 0));
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);
const group = (
  organizationId: string,
  stage: BacklogGroup['stage'],
  admitted: boolean,
  count: number,
  ageSeconds: number,
): BacklogGroup => ({
  organizationId,
  stage,
  admitted,
  count,
  oldestAt: ago(ageSeconds),
});

describe(backlogSnapshot.name, () => {
  it('counts every stage, the waiting generations per organization and each one’s oldest wait', () => {
    const sut = backlogSnapshot(
      [
        group('org_a', 'queued', false, 5, 300),
        group('org_a', 'queued', true, 1, 400),
        group('org_a', 'generating', true, 2, 900),
        group('org_b', 'generating', true, 3, 60),
        group('org_c', 'queued', false, 1, 30),
      ],
      () => 10,
      NOW,
    );
    expect(Object.fromEntries(sut.stages)).toEqual({ queued: 7, generating: 5, downloading: 0, storing: 0 });
    expect(sut.waiting).toEqual([
      { organization: 'org_a', count: 6 },
      { organization: 'org_c', count: 1 },
      { organization: 'other', count: 0 },
    ]);
    // org_b has nothing waiting: its generations run. The oldest of org_a is the admitted one.
    expect(sut.oldestWaiting).toEqual([
      { organization: 'org_a', atLimit: false, seconds: 400 },
      { organization: 'org_c', atLimit: false, seconds: 30 },
      { organization: 'other', atLimit: false, seconds: 0 },
      { organization: 'other', atLimit: true, seconds: 0 },
    ]);
  });

  it('marks an organization whose admitted generations reach its maxConcurrentGenerations as at its limit', () => {
    const sut = backlogSnapshot(
      [
        group('org_busy', 'queued', false, 50, 1200),
        group('org_busy', 'generating', true, 2, 1300),
        group('org_idle', 'queued', false, 1, 5),
      ],
      (id) => (id === 'org_busy' ? 2 : 10),
      NOW,
    );
    expect(sut.oldestWaiting.slice(0, 2)).toEqual([
      { organization: 'org_busy', atLimit: true, seconds: 1200 },
      { organization: 'org_idle', atLimit: false, seconds: 5 },
    ]);
  });

  it('names at most `top` organizations per gauge and folds the rest into other: bounded labels whatever the tenants', () => {
    const groups = Array.from({ length: 500 }, (_, i) => group(`org_${String(i).padStart(3, '0')}`, 'queued', false, i + 1, i));
    const sut = backlogSnapshot(groups, (id) => (id < 'org_100' ? 10 : 0), NOW, 20);
    expect(sut.waiting).toHaveLength(21);
    // The largest backlogs by name, the rest summed.
    expect(sut.waiting[0]).toEqual({ organization: 'org_499', count: 500 });
    expect(sut.waiting[20]).toEqual({ organization: 'other', count: (480 * 481) / 2 });
    expect(sut.oldestWaiting).toHaveLength(22);
    // The longest waits by name; other holds the longest of the rest, on each side of the limit.
    expect(sut.oldestWaiting[0]).toEqual({ organization: 'org_499', atLimit: true, seconds: 499 });
    expect(sut.oldestWaiting.slice(20)).toEqual([
      { organization: 'other', atLimit: false, seconds: 99 },
      { organization: 'other', atLimit: true, seconds: 479 },
    ]);
  });
});

describe(waitingGroups.name, () => {
  it("makes tenancy's counts queued groups, dropping an organization whose waiting work left between the reads", () => {
    const at = new Date('2026-11-29T10:00:00Z');
    expect(
      waitingGroups(
        [
          { organizationId: 'org_a', waiting: 3 },
          { organizationId: 'org_b', waiting: 2 },
        ],
        new Map([['org_a', at]]),
      ),
    ).toEqual([{ organizationId: 'org_a', stage: 'queued', admitted: false, count: 3, oldestAt: at }]);
  });
});

describe(GenerationBacklogMetrics.name, () => {
  /** The metrics over faked reads: `groups` as the two reads' results would make them. */
  function start(inProgress: () => Promise<BacklogGroup[]>, limits: Record<string, number> = {}) {
    const metrics = new MetricsService();
    const limitsService = {
      ofMany: (ids: string[]) =>
        Promise.resolve(
          new Map<string, OrganizationLimits>(
            ids.map((id) => [id, { maxConcurrentGenerations: limits[id] ?? 10, generationsPerDay: null, maxWaitingGenerations: 1000 }]),
          ),
        ),
    } as unknown as LimitsService;
    // Waiting groups come from tenancy's counts and the oldest arrival of each; admitted ones from the grouped read.
    let read: Promise<BacklogGroup[]> | null = null;
    const groups = () => (read ??= inProgress().finally(() => setImmediate(() => (read = null))));
    new GenerationBacklogMetrics(
      {
        admittedInProgress: async () => (await groups()).filter((g) => g.admitted),
        oldestWaitingOf: async () => new Map((await groups()).filter((g) => !g.admitted).map((g) => [g.organizationId, g.oldestAt])),
      } as unknown as GenerationBacklogRepository,
      {
        withWaiting: async () =>
          (await groups()).filter((g) => !g.admitted).map((g) => ({ organizationId: g.organizationId, waiting: g.count })),
      } as unknown as GenerationBacklogs,
      limitsService,
      new ManualClock(NOW.getTime()),
      metrics,
    );
    return metrics;
  }

  it('reports the three gauges from one read per scrape', async () => {
    let reads = 0;
    const metrics = start(
      () => {
        reads += 1;
        return Promise.resolve([group('org_a', 'queued', false, 3, 90), group('org_a', 'generating', true, 1, 100)]);
      },
      { org_a: 1 },
    );
    const { body } = await metrics.render();
    expect(reads).toBe(1);
    expect(body).toContain('generations_in_progress{stage="queued"} 3');
    expect(body).toContain('generations_in_progress{stage="storing"} 0');
    expect(body).toContain('generations_waiting{organization="org_a"} 3');
    expect(body).toContain('generations_waiting{organization="other"} 0');
    expect(body).toContain('generation_oldest_waiting_seconds{organization="org_a",at_limit="true"} 90');
    expect(body).toContain('generation_oldest_waiting_seconds{organization="other",at_limit="false"} 0');
  });

  it('a scrape during a database outage answers with every other metric and these gauges empty', async () => {
    const metrics = start(() => Promise.reject(new Error('Connection terminated unexpectedly')));
    const { body } = await metrics.render();
    expect(body).toContain('process_cpu_user_seconds_total');
    expect(body).toContain('# TYPE generations_waiting gauge');
    expect(body.split('\n').filter((l) => /^generation/.test(l))).toEqual([]);
  });
});
