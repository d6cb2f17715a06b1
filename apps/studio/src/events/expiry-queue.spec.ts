import fc from 'fast-check';
import { ExpiryQueue } from './expiry-queue';

describe(ExpiryQueue.name, () => {
  it('gives the keys due, earliest first, and only those', () => {
    const sut = new ExpiryQueue();
    sut.set('b', 200);
    sut.set('a', 100);
    sut.set('c', 300);
    expect(sut.next()).toBe(100);
    expect(sut.takeDue(250)).toEqual(['a', 'b']);
    expect(sut.next()).toBe(300);
    expect(sut.size).toBe(1);
    expect(sut.takeDue(299)).toEqual([]);
    expect(sut.takeDue(300)).toEqual(['c']);
    expect(sut.next()).toBeNull();
  });

  it('says when the earliest moment moved earlier, so its owner re-arms its one timer', () => {
    const sut = new ExpiryQueue();
    expect(sut.set('a', 100)).toBe(true);
    expect(sut.set('b', 200)).toBe(false);
    expect(sut.set('b', 50)).toBe(true);
    expect(sut.set('b', 50)).toBe(false);
  });

  it('a moved key counts at its new moment only; a dropped key never comes due', () => {
    const sut = new ExpiryQueue();
    sut.set('a', 100);
    sut.set('b', 150);
    sut.set('a', 500);
    sut.delete('b');
    expect(sut.next()).toBe(500);
    expect(sut.takeDue(400)).toEqual([]);
    expect(sut.takeDue(500)).toEqual(['a']);
  });

  it('matches a plain map under any sequence of moves and drops, and stays compact', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 20 }), at: fc.integer({ min: 0, max: 1000 }) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('take' as const), now: fc.integer({ min: 0, max: 1000 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const sut = new ExpiryQueue();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            sut.set(String(o.key), o.at);
            model.set(String(o.key), o.at);
          } else if (o.kind === 'delete') {
            sut.delete(String(o.key));
            model.delete(String(o.key));
          } else {
            const due = [...model].filter(([, at]) => at <= o.now).sort((x, y) => x[1] - y[1]);
            const taken = sut.takeDue(o.now);
            expect(taken.map((k) => model.get(k))).toEqual(due.map(([, at]) => at));
            expect(new Set(taken)).toEqual(new Set(due.map(([k]) => k)));
            for (const k of taken) model.delete(k);
          }
          expect(sut.size).toBe(model.size);
          expect(sut.next()).toBe(model.size ? Math.min(...model.values()) : null);
          expect((sut as unknown as { heap: unknown[] }).heap.length).toBeLessThanOrEqual(2 * model.size + 65);
        }
      }),
      { seed: 32, numRuns: 200 },
    );
  });
});
