import { OrganizationLimits } from '@app/tenancy';
import { WaitingOrganization } from './admission.repository';
import { planAdmissions } from './generation-admission';

const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, s));
const org = (organizationId: string, waiting: number, o: Partial<WaitingOrganization> = {}): WaitingOrganization => ({
  organizationId,
  waiting,
  running: 0,
  lastTurn: null,
  oldestAt: at(0),
  ...o,
});
const limits = (entries: Record<string, number>) =>
  new Map<string, OrganizationLimits>(
    Object.entries(entries).map(([id, max]) => [
      id,
      { maxConcurrentGenerations: max, generationsPerDay: null, maxWaitingGenerations: 1000 },
    ]),
  );

describe(planAdmissions.name, () => {
  it('serves organizations in turn, the one served longest ago first', () => {
    const sut = planAdmissions(
      [org('heavy', 500, { lastTurn: 9 }), org('light', 1, { lastTurn: 3 }), org('middle', 3, { lastTurn: 5 })],
      limits({ heavy: 10, light: 10, middle: 10 }),
      6,
    );
    expect(sut).toEqual(['light', 'middle', 'heavy', 'middle', 'heavy', 'middle']);
  });

  it('an organization never served goes first; among those, the one whose oldest work waits longest', () => {
    const sut = planAdmissions(
      [org('served', 5, { lastTurn: 1 }), org('late', 1, { oldestAt: at(30) }), org('early', 1, { oldestAt: at(10) })],
      limits({ served: 10, late: 10, early: 10 }),
      3,
    );
    expect(sut).toEqual(['early', 'late', 'served']);
  });

  it('never admits past maxConcurrentGenerations, counting what already runs; free slots go to others', () => {
    const sut = planAdmissions([org('capped', 50, { running: 3 }), org('other', 2, { lastTurn: 7 })], limits({ capped: 4, other: 10 }), 8);
    expect(sut.filter((id) => id === 'capped')).toHaveLength(1);
    expect(sut.filter((id) => id === 'other')).toHaveLength(2);
    expect(sut).toHaveLength(3);
  });

  it('admits no more than the free slots, and nothing when there are none', () => {
    expect(planAdmissions([org('a', 100)], limits({ a: 1000 }), 4)).toHaveLength(4);
    expect(planAdmissions([org('a', 100)], limits({ a: 1000 }), 0)).toEqual([]);
  });

  it('a light organization is picked within two rounds whatever the others have waiting', () => {
    // Twenty heavy organizations served just now, one light one served long ago: the light one is first.
    const heavy = Array.from({ length: 20 }, (_, i) => org(`h${i}`, 500, { lastTurn: 100 + i }));
    const sut = planAdmissions(
      [...heavy, org('light', 1, { lastTurn: 50 })],
      limits(Object.fromEntries([...heavy.map((h) => [h.organizationId, 10]), ['light', 10]])),
      8,
    );
    expect(sut[0]).toBe('light');
  });
});
