import { OpenStreams } from './open-streams';

describe(OpenStreams.name, () => {
  const stream = (sessionId: string, sceneId: string) => ({ sessionId, sceneId });

  it('finds streams by session and by scene, and forgets each exactly once', () => {
    const sut = new OpenStreams<ReturnType<typeof stream>>();
    const a1 = stream('es_a', 'sc_1');
    const a2 = stream('es_a', 'sc_1');
    const b = stream('es_b', 'sc_1');
    const c = stream('es_c', 'sc_2');
    for (const s of [a1, a2, b, c]) sut.add(s);
    sut.add(a1);
    expect(sut.size).toBe(4);
    expect(sut.sessionCount).toBe(3);
    expect([...sut.ofSession('es_a')]).toEqual([a1, a2]);
    expect([...sut.ofScene('sc_1')]).toEqual([a1, a2, b]);
    expect(sut.ofScene('sc_9').size).toBe(0);

    expect(sut.delete(a1)).toEqual({ removed: true, sessionEmpty: false });
    expect(sut.delete(a1)).toEqual({ removed: false, sessionEmpty: false });
    expect(sut.delete(a2)).toEqual({ removed: true, sessionEmpty: true });
    expect(sut.has(a2)).toBe(false);
    expect(sut.sessionIds().sort()).toEqual(['es_b', 'es_c']);
    sut.delete(b);
    expect(sut.hasScene('sc_1')).toBe(false);
    sut.delete(c);
    expect(sut.size).toBe(0);
    expect(sut.sessionCount).toBe(0);
    expect(sut.all()).toEqual([]);
  });
});
